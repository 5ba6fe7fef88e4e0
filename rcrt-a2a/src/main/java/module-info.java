/**
 * Agent2Agent (A2A) both ways, on the official A2A Java SDK (protocol 0.3.0): agent records served
 * as A2A agents, with their tasks kept as records, and A2A agents run as tools of the {@code a2a}
 * implementation type.
 */
module dev.rcrt.a2a {
  requires transitive dev.rcrt.agent;
  requires transitive a2a.java.sdk.spec;
  requires a2a.java.sdk.server.common;
  requires a2a.java.sdk.transport.jsonrpc;
  requires com.fasterxml.jackson.databind;
  requires dev.rcrt.http;
  requires org.slf4j;

  exports dev.rcrt.a2a;
  // what the AG-UI server shares: served executors, run watch
  exports dev.rcrt.a2a.internal to dev.rcrt.agui;

  provides dev.rcrt.tools.ToolRuntime with dev.rcrt.a2a.A2aToolRuntime;
  provides io.a2a.server.TransportMetadata with dev.rcrt.a2a.internal.JsonRpcTransport;
}
