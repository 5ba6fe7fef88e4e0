package dev.rcrt.benchmarks;

import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.AgentExecutor;
import dev.rcrt.agent.UserMessage;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.llm.ChatMessage;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.llm.ToolCall;
import dev.rcrt.tools.ToolRunner;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The agent loop's own cost per turn with an instant scripted model: discovery, prompt, message
 * building, one calculator call through the runner, and the four breadcrumbs of the trail. Each
 * turn uses a new session, so history stays constant. With {@code tools=1000} the agent has a
 * {@code tool_budget_tokens} of 2,000, so each turn also ranks the 1,000 tools against the message:
 * by BM25 alone ({@code ranking=bm25}), or by the hybrid of meaning and words ({@code
 * ranking=hybrid}: the store embeds with RCRT's MiniLM in process, and each turn's message is new,
 * so the turn embeds it once; the tools' vectors are cached after the first turn), or by the same
 * hybrid with a synthetic provider that embeds in microseconds ({@code ranking=hybrid-synthetic}:
 * the SDK's own cost of ranking by meaning, without the model's).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class AgentTurnBenchmark {
  @org.openjdk.jmh.annotations.Param({"1000"})
  int tools;

  @org.openjdk.jmh.annotations.Param({"bm25", "hybrid", "hybrid-synthetic"})
  String ranking;

  dev.rcrt.embeddings.minilm.@org.jspecify.annotations.Nullable MiniLmEmbeddings minilm;

  InMemoryBreadcrumbStore store;
  ToolRunner runner;
  AgentExecutor executor;
  long session;

  @Setup(Level.Trial)
  public void setUp() {
    InMemoryBreadcrumbStore.Builder stores = InMemoryBreadcrumbStore.builder().eventExecutor(Runnable::run);
    // only the message and the tools are embedded: the records' vectors are not what this measures
    dev.rcrt.core.EmbeddingPolicy none = dev.rcrt.core.EmbeddingPolicy.builder().skipSchemas("*").build();
    if (ranking.equals("hybrid")) {
      minilm = dev.rcrt.embeddings.minilm.MiniLmEmbeddings.create();
      stores.embeddings(minilm, none);
    } else if (ranking.equals("hybrid-synthetic")) {
      stores.embeddings(new ClusteredEmbeddings(), none);
    }
    store = stores.build();
    Fixtures.seedTools(store, tools);
    runner = ToolRunner.builder(store).build();
    AgentDefinition agent =
        tools <= 6
            ? AgentDefinition.fromBreadcrumb(store.create(AgentDefinition.defaultChatAgent()))
            : AgentDefinition.fromBreadcrumb(store.create(dev.rcrt.core.BreadcrumbCreate.builder("agent.def.v1", "budgeted")
                .context(dev.rcrt.core.RcrtJson.parse("{\"agent_id\":\"budgeted\",\"model\":\"gpt-4o-mini\",\"system_prompt\":\"p\",\"tool_budget_tokens\":2000}")).build()));
    LlmClient instant =
        request -> {
          List<ChatMessage> m = request.messages();
          return "tool".equals(m.get(m.size() - 1).role())
              ? ChatResponse.text("391")
              : ChatResponse.toolCalls(new ToolCall("call_1", "calculator", "{\"expression\":\"17 * 23\"}"));
        };
    executor = AgentExecutor.builder(instant, runner).agent(agent).build();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    executor.close();
    runner.close();
    if (minilm != null) {
      minilm.close();
    }
  }

  @Benchmark
  public Breadcrumb turnWithOneToolCall() {
    Breadcrumb trigger = store.create(new UserMessage("bench-" + session, "What is 17 * 23? (question " + session++ + ")").toBreadcrumb());
    return executor.answer(trigger);
  }
}
