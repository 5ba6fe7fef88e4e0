/** A user's modular application: it reads the SDK's agent module and nothing of its internals. */
module dev.rcrt.consumer.modular {
  requires dev.rcrt.agent;
  requires dev.rcrt.tools.js; // in the module graph, so that ServiceLoader finds its ToolRuntime
}
