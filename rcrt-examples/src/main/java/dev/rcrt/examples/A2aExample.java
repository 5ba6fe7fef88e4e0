package dev.rcrt.examples;

import dev.rcrt.a2a.A2aServer;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.tools.ToolRunner;
import dev.rcrt.tools.ToolTrustPolicy;

/** Agents over A2A: the store's agent records served to A2A clients, and remote A2A agents called as tools. */
public final class A2aExample {
  private A2aExample() {}

  /** Serves every agent record the host wrote; the caller's "approve" replies count as decisions. */
  static A2aServer serve(BreadcrumbStore store, LlmClient llm) {
    // docs:begin a2a-serve
    ToolRunner runner = ToolRunner.builder(store)
        .approvers(A2aServer.CALLER) // the A2A caller's reply to an input-required task decides the approval
        .trustPolicy(ToolTrustPolicy.builder().allowNetwork("10.20.0.0/16").build()) // where a2a tools may connect
        .build();
    A2aServer server = A2aServer.builder(llm, runner)
        .http("0.0.0.0", 8809)
        .bearerToken(System.getenv("RCRT_A2A_TOKEN")) // required off loopback
        .serveRuns(true) // servers of a shared store take over each other's runs after a crash
        .start();
    System.out.println(server.cardUri("default-chat-assistant")); // http://0.0.0.0:8809/a2a/default-chat-assistant/.well-known/agent-card.json
    // docs:end a2a-serve
    return server;
  }
}
