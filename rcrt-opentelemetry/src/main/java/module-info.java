/** GenAI traces and metrics of agents, model calls and tools on the OpenTelemetry API. */
module dev.rcrt.opentelemetry {
  requires transitive dev.rcrt.agent;
  requires transitive io.opentelemetry.api;
  requires io.opentelemetry.context;

  exports dev.rcrt.opentelemetry;
}
