package com.example.shop;

import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.AgentExecutor;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.llm.DemoLlmClient;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.llm.OpenAiCompatibleLlmClient;
import dev.rcrt.tools.ToolRunner;
import java.util.Map;

/** An agent that answers through the two annotated tools: {@code mvn -q compile exec:java}. */
public class FirstAgent {
  public static void main(String[] args) {
    String question = args.length > 0 ? String.join(" ", args) : "What do 3 copies of BOOK-7 cost?";
    System.out.println(ask(InMemoryBreadcrumbStore.builder().build(), model(System.getenv()), question));
  }

  /**
   * The model: an OpenAI-compatible endpoint when {@code OPENAI_API_KEY} or {@code OPENAI_BASE_URL}
   * is set ({@code OPENAI_MODEL}, default gpt-4o-mini), else the SDK's offline demo model.
   */
  public static LlmClient model(Map<String, String> env) {
    String key = env.get("OPENAI_API_KEY");
    String baseUrl = env.get("OPENAI_BASE_URL");
    if (key == null && baseUrl == null) {
      System.err.println("No OPENAI_API_KEY or OPENAI_BASE_URL: the offline demo model answers.");
      return new DemoLlmClient();
    }
    return OpenAiCompatibleLlmClient.builder(baseUrl != null ? baseUrl : "https://api.openai.com/v1")
        .apiKey(key)
        .defaultModel(env.getOrDefault("OPENAI_MODEL", "gpt-4o-mini"))
        .build();
  }

  /** One question, one answer; every step is a breadcrumb in {@code store}. */
  public static String ask(BreadcrumbStore store, LlmClient model, String question) {
    AgentDefinition agent = AgentDefinition.builder("shop-assistant")
        .systemPrompt("You answer questions about orders. Use the tools; never guess a price.")
        .build();
    // the agent is offered the tools in the store: here the two annotated ones, which the runner publishes.
    // The SDK's builtin tools (calculator, breadcrumb-search, ...) join them only if you add them: BuiltinTools.seed(store)
    try (ToolRunner runner = ToolRunner.builder(store).tools(new OrderTools()).build();
        AgentExecutor executor = AgentExecutor.builder(model, runner).agent(agent).build()) {
      return executor.ask("session-1", question).message();
    }
  }
}
