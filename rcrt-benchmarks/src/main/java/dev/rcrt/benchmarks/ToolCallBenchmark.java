package dev.rcrt.benchmarks;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolRunner;
import com.fasterxml.jackson.databind.JsonNode;
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
 * One builtin tool call through the {@link ToolRunner}: write the request, resolve the tool,
 * validate the input, run the calculator on a runner thread, validate the output, write the
 * response.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ToolCallBenchmark {
  ToolRunner runner;
  final JsonNode input = RcrtJson.parse("{\"expression\":\"17 * 23\"}");

  @Setup(Level.Trial)
  public void setUp() {
    InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().eventExecutor(Runnable::run).build();
    BuiltinTools.seed(store);
    runner = ToolRunner.builder(store).build();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    runner.close();
  }

  @Benchmark
  public Breadcrumb calculatorCall() {
    return runner.submit(ToolRequest.of("calculator", input, "bench"), List.of());
  }
}
