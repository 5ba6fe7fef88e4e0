package dev.rcrt.examples;

import dev.rcrt.agui.AgUiServer;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.Principal;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.tools.ToolRunner;

/** Agents in the browser: the store's agent records served over AG-UI, with the console. */
public final class AgUiExample {
  private AgUiExample() {}

  /** Serves every agent record the host wrote over AG-UI, and the console, where alice decides what waits. */
  static AgUiServer serve(BreadcrumbStore store, LlmClient llm) {
    // docs:begin agui-serve
    ToolRunner runner = ToolRunner.builder(store)
        .approvers(AgUiServer.CALLER, Principal.ofWriter("user:alice")) // the front-end's resumes, alice's console decisions
        .build();
    AgUiServer server = AgUiServer.builder(llm, runner)
        .console("alice") // the console at /, deciding as user:alice
        .start(); // 127.0.0.1, a free port
    System.out.println(server.endpoint("default-chat-assistant")); // http://127.0.0.1:PORT/agui/default-chat-assistant
    // docs:end agui-serve
    return server;
  }
}
