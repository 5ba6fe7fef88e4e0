package dev.rcrt.examples;

import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.AgentExecutor;
import dev.rcrt.agent.AgentResponse;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.llm.ToolCall;
import dev.rcrt.testing.ScriptedLlmClient;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.ToolRunner;

/**
 * An agent embedded in a host application: the in-memory store, the bundled tools, and a scripted
 * model standing in for a real one (swap in {@code OpenAiCompatibleLlmClient} for production).
 */
public final class EmbeddedAgentExample {
  private EmbeddedAgentExample() {}

  /** Asks one question and returns the agent's answer. */
  public static String run(LlmClient llm) {
    // docs:begin embedded
    BreadcrumbStore store = new InMemoryBreadcrumbStore();
    BuiltinTools.seed(store); // tool breadcrumbs the agent will discover
    AgentDefinition agent = AgentDefinition.fromBreadcrumb(store.create(AgentDefinition.defaultChatAgent()));

    try (ToolRunner runner = ToolRunner.builder(store).build();
        AgentExecutor executor = AgentExecutor.builder(llm, runner).agent(agent).build()) {
      AgentResponse answer = executor.ask("session-1", "What is 17 * 23?"); // recorded as agent.response.v1
      return answer.message();
    }
    // docs:end embedded
  }

  public static void main(String[] args) {
    LlmClient scripted =
        ScriptedLlmClient.replying(
            ChatResponse.toolCalls(new ToolCall("call_1", "calculator", "{\"expression\":\"17 * 23\"}")),
            ChatResponse.text("17 * 23 = 391"));
    System.out.println(run(scripted));
  }
}
