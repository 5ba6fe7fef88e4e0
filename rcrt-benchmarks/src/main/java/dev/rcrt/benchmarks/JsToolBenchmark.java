package dev.rcrt.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
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
 * A trivial JavaScript tool and the same tool in TypeScript, warm: each call goes through the whole
 * {@link ToolRunner} pipeline (request and response breadcrumbs, input validation, a fresh GraalJS
 * context for each call, the async adapter). Calls follow each other with no pause, so most wait
 * for their context to be built.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class JsToolBenchmark {
  static final String JS = "export async function execute(input) { return {n: input.n + 1}; }";
  static final String TS = "export async function execute(input: {n: number}): Promise<{n: number}> { return {n: input.n + 1}; }";

  ToolRunner runner;
  final JsonNode input = RcrtJson.parse("{\"n\":41}");

  /** A store holding the JavaScript tool {@code js-inc} and the TypeScript tool {@code ts-inc}, which add one to {@code n}. */
  static InMemoryBreadcrumbStore storeWithIncrementers() {
    InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().eventExecutor(Runnable::run).build();
    define(store, "js-inc", "javascript", JS);
    define(store, "ts-inc", "typescript", TS);
    return store;
  }

  static void define(InMemoryBreadcrumbStore store, String name, String language, String source) {
    store.create(BreadcrumbCreate.builder("tool.code.v1", name)
        .context(RcrtJson.object().put("name", name).<com.fasterxml.jackson.databind.node.ObjectNode>set("code",
            RcrtJson.object().put("language", language).put("source", source)))
        .build());
  }

  @Setup(Level.Trial)
  public void setUp() {
    InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().eventExecutor(Runnable::run).build();
    define(store, "js-inc", "javascript", JS);
    define(store, "ts-inc", "typescript", TS);
    runner = ToolRunner.builder(store).build();
    runner.call(ToolRequest.of("js-inc", input, "bench"));
    runner.call(ToolRequest.of("ts-inc", input, "bench"));
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    runner.close();
  }

  @Benchmark
  public ToolResponse javascriptWarm() {
    return runner.call(ToolRequest.of("js-inc", input, "bench"));
  }

  @Benchmark
  public ToolResponse typescriptCached() {
    return runner.call(ToolRequest.of("ts-inc", input, "bench"));
  }
}
