package dev.rcrt.benchmarks;

import dev.rcrt.agent.ToolPrompt;
import dev.rcrt.agent.ToolPromptAdapter;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.tools.ToolDiscovery;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Tool discovery from the store plus prompt build (text prompt and OpenAI tools): what an agent
 * does at the start of every turn. The design documents report 25–30 ms for 14 tools.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ToolContextBenchmark {
  @Param({"14", "1000"})
  int tools;

  ToolDiscovery discovery;
  final ToolPromptAdapter adapter = new ToolPromptAdapter();

  @Setup(Level.Trial)
  public void seed() {
    InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().eventExecutor(Runnable::run).build();
    Fixtures.seedTools(store, tools);
    discovery = new ToolDiscovery(store);
  }

  @Benchmark
  public ToolPrompt discoverAndBuildPrompt() {
    return adapter.adapt(discovery.discover().items());
  }
}
