package com.example.shop;

import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.AgentExecutor;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.llm.OpenAiCompatibleLlmClient;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.ToolRunner;

/** An agent that answers through the SDK's builtin tools and the two annotated ones. */
public class FirstAgent {
  public static void main(String[] args) {
    LlmClient model = OpenAiCompatibleLlmClient.builder("https://api.openai.com/v1")
        .apiKey(System.getenv("OPENAI_API_KEY"))
        .defaultModel("gpt-4o-mini")
        .build();
    System.out.println(ask(InMemoryBreadcrumbStore.builder().build(), model, "What do 3 copies of BOOK-7 cost?"));
  }

  /** One question, one answer; every step is a breadcrumb in {@code store}. */
  public static String ask(BreadcrumbStore store, LlmClient model, String question) {
    BuiltinTools.seed(store); // calculator, breadcrumb-search, ... as tool records (unchanged ones are not written again)
    AgentDefinition agent = AgentDefinition.builder("shop-assistant")
        .systemPrompt("You answer questions about orders. Use the tools; never guess a price.")
        .build();
    try (ToolRunner runner = ToolRunner.builder(store).tools(new OrderTools()).build();
        AgentExecutor executor = AgentExecutor.builder(model, runner).agent(agent).build()) {
      return executor.ask("session-1", question).message();
    }
  }
}
