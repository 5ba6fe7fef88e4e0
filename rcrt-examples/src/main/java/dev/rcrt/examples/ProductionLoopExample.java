package dev.rcrt.examples;

import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.AgentExecutor;
import dev.rcrt.agent.AgentResponse;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.Subscription;
import dev.rcrt.llm.ChatOptions;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.llm.OpenAiCompatibleLlmClient;
import dev.rcrt.tools.ToolRunner;
import dev.rcrt.tools.ToolTrustPolicy;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/** The production settings of the agent loop, as the reference page on agents shows them. */
public final class ProductionLoopExample {
  private ProductionLoopExample() {}

  /** A streaming client with its retry policy. */
  static LlmClient client(String baseUrl, String apiKey) {
    // docs:begin client
    LlmClient llm =
        OpenAiCompatibleLlmClient.builder(baseUrl)
            .apiKey(apiKey)
            .requestTimeout(Duration.ofSeconds(60))
            .maxRetries(3) // 429 and 5xx, honouring Retry-After
            .retryBackoff(Duration.ofMillis(500), Duration.ofSeconds(20))
            .build();
    // docs:end client
    return llm;
  }

  /** An Azure OpenAI deployment: its key goes in the {@code api-key} header, the API version in the query. */
  static OpenAiCompatibleLlmClient azure(String resource, String deployment, String key) {
    // docs:begin azure
    OpenAiCompatibleLlmClient azure =
        OpenAiCompatibleLlmClient.builder("https://" + resource + ".openai.azure.com/openai/deployments/" + deployment)
            .header("api-key", key) // instead of Authorization: Bearer
            .queryParameter("api-version", "2024-10-21")
            .build();
    // docs:end azure
    return azure;
  }

  /** An agent defined in code, stored so that other processes find it. */
  static AgentDefinition supportBot(BreadcrumbStore store) {
    // docs:begin agent
    AgentDefinition agent = AgentDefinition.builder("support-bot")
        .model("gpt-4o")
        .systemPrompt("Answer support questions.")
        .options(ChatOptions.builder().temperature(0.1).maxTokens(400).build())
        .build();
    store.create(agent.toBreadcrumb()); // optional: other processes and ./rcrt find it
    // docs:end agent
    return agent;
  }

  /** An executor that streams and runs tool calls in parallel on the host's pool. */
  static AgentExecutor streaming(LlmClient llm, ToolRunner runner, AgentDefinition agent, ExecutorService hostPool) {
    // docs:begin streaming
    AgentExecutor executor =
        AgentExecutor.builder(llm, runner)
            .agent(agent)
            .streamListener(text -> System.out.print(text)) // tokens as they arrive
            .toolExecutor(hostPool) // the calls of one answer run concurrently here
            .build();
    // docs:end streaming
    return executor;
  }

  /**
   * A runner that lets container tools use the team's images and HTTP tools call one internal
   * network, asks before risky tools, and counts every call on every path.
   */
  static ToolRunner guarded(BreadcrumbStore store, AtomicLong calls) {
    // docs:begin trust
    ToolRunner runner =
        ToolRunner.builder(store)
            .trustPolicy(
                ToolTrustPolicy.builder()
                    .allowImages("ghcr.io/acme/*") // container tools may run these images, no others
                    .allowNetwork("10.20.0.0/16") // the internal API our HTTP tools call
                    .build())
            .approvalHandler((request, tool) -> askOperator(tool.name(), request.input().toString()))
            .addInterceptor(chain -> { // sees every call: direct, agents, listeners, the CLI
              calls.incrementAndGet();
              return chain.proceed(chain.request());
            })
            .build();
    // docs:end trust
    return runner;
  }

  /** Tools run by a runner that listens on the store, perhaps in another process. */
  static AgentResponse eventDriven(LlmClient llm, BreadcrumbStore store, AgentDefinition agent, String question) {
    // docs:begin events
    try (ToolRunner worker = ToolRunner.builder(store).build();
        Subscription listening = worker.listen(); // answers every tool.request.v1
        ToolRunner local = ToolRunner.builder(store).build();
        AgentExecutor executor =
            AgentExecutor.builder(llm, local)
                .agent(agent)
                .toolMode(AgentExecutor.ToolMode.EVENT, Duration.ofSeconds(30))
                .build()) {
      return executor.ask("session-1", question);
    }
    // docs:end events
  }

  private static boolean askOperator(String tool, String input) {
    return !tool.startsWith("wire-");
  }

  public static void main(String[] args) {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    pool.shutdown();
    System.out.println(client("http://localhost:11434/v1", "unused"));
  }
}
