package dev.rcrt.benchmarks;

import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The first call of a JavaScript tool and of a TypeScript tool on a new runner: engine, context and
 * module evaluation, and for TypeScript loading the TypeScript compiler and the first transpile.
 * Each measurement is one first call; the JVM itself is warm (earlier iterations ran).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 5)
@Fork(1)
public class JsColdBenchmark {
  ToolRunner runner;

  @Setup(Level.Iteration)
  public void newRunner() {
    runner = ToolRunner.builder(JsToolBenchmark.storeWithIncrementers()).build();
  }

  @TearDown(Level.Iteration)
  public void close() {
    runner.close();
  }

  @Benchmark
  public ToolResponse javascriptFirstCall() {
    return runner.call(ToolRequest.of("js-inc", RcrtJson.parse("{\"n\":1}"), "bench"));
  }

  @Benchmark
  public ToolResponse typescriptFirstCallWithCompilerLoad() {
    return runner.call(ToolRequest.of("ts-inc", RcrtJson.parse("{\"n\":1}"), "bench"));
  }
}
