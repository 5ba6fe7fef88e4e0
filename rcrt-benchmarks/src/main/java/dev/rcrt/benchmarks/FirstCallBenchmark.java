package dev.rcrt.benchmarks;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbFiles;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The first call of a tool in a fresh process (JMH single-shot: every fork is a new JVM and measures
 * exactly one call, which includes starting the JavaScript worker and loading the tool):
 *
 * <ul>
 *   <li>{@code javascript}: a JavaScript tool;
 *   <li>{@code typescript-kept}: a TypeScript tool whose JavaScript another process already kept in
 *       the store (a child JVM runs the tool once on its own store in the setup and hands over the
 *       {@code tool.transpiled.v1} record it wrote, which this process loads as the host would);
 *   <li>{@code typescript}: a TypeScript tool nobody has transpiled (the compiler loads in the call).
 * </ul>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 0)
@Measurement(iterations = 1)
@Fork(5)
public class FirstCallBenchmark {
  @Param({"javascript", "typescript-kept", "typescript"})
  public String tool;

  ToolRunner runner;
  InMemoryBreadcrumbStore store;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    store = JsToolBenchmark.storeWithIncrementers();
    if (tool.equals("typescript-kept")) {
      Path kept = Files.createTempFile("rcrt-transpiled", ".json");
      Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
              "-cp", System.getProperty("java.class.path"), FirstCallBenchmark.class.getName(), kept.toString())
          .inheritIO().start();
      if (child.waitFor() != 0) {
        throw new IllegalStateException("the transpiling process failed");
      }
      BreadcrumbFiles.loadInto(store, List.of(kept));
      Files.delete(kept);
      if (store.search(Selector.schema("tool.transpiled.v1"), 10, 0).size() != 1) {
        throw new IllegalStateException("no transpiled record handed over");
      }
    }
    runner = ToolRunner.builder(store).build();
  }

  @TearDown(Level.Trial)
  public void close() {
    runner.close();
  }

  @Benchmark
  public ToolResponse firstCall() {
    ToolResponse r = runner.call(ToolRequest.of(tool.equals("javascript") ? "js-inc" : "ts-inc", RcrtJson.parse("{\"n\":1}"), "bench"));
    if (r.error() != null) {
      throw new IllegalStateException(r.error());
    }
    return r;
  }

  /** The other process: runs the TypeScript tool once and writes the record its runtime kept to {@code args[0]}. */
  public static void main(String[] args) throws IOException {
    InMemoryBreadcrumbStore own = InMemoryBreadcrumbStore.builder().eventExecutor(Runnable::run).build();
    JsToolBenchmark.define(own, "ts-inc", "typescript", JsToolBenchmark.TS);
    try (ToolRunner r = ToolRunner.builder(own).build()) {
      ToolResponse response = r.call(ToolRequest.of("ts-inc", RcrtJson.parse("{\"n\":1}"), "bench"));
      if (response.error() != null) {
        throw new IllegalStateException(response.error());
      }
    }
    List<Breadcrumb> kept = own.search(Selector.schema("tool.transpiled.v1"), 10, 0);
    Files.writeString(Path.of(args[0]), RcrtJson.write(kept.get(0)), StandardCharsets.UTF_8); // the wire form BreadcrumbFiles reads
    System.exit(0);
  }
}
