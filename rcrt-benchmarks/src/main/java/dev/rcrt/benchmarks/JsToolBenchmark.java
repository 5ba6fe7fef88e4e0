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
 * context for each call, in a worker process, the async adapter). Calls follow each other with no
 * pause, so most wait for their context to be built. Beside it, the same increment through
 * LangChain4j's {@code GraalVmJavaScriptExecutionEngine} (a new GraalJS context per call, in the
 * calling JVM, no record of the call), on the same GraalJS.
 *
 * <p>Warm-up matters here more than anywhere: the worker is a JVM of its own whose C2 compiles
 * GraalJS's interpreter for about half a minute of calls. With 3 × 2 s of warm-up the SDK's median
 * was 1.4 ms, with the 5 × 10 s set here 0.44 ms (the same commit, the same machine; see {@code
 * docs/benchmarks.md}), so options given on the command line ({@code -wi}, {@code -w}) that shorten
 * it measure the worker's start, not its calls.
 */
@org.openjdk.jmh.annotations.Warmup(iterations = 5, time = 10)
@org.openjdk.jmh.annotations.Measurement(iterations = 5, time = 4)
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class JsToolBenchmark {
  static final String JS = "export async function execute(input) { return {n: input.n + 1}; }";
  static final String TS = "export async function execute(input: {n: number}): Promise<{n: number}> { return {n: input.n + 1}; }";

  static final String LANGCHAIN4J_JS = "(function (input) { return {n: input.n + 1}; })({n: 41}).n";

  ToolRunner runner;
  final dev.langchain4j.code.graalvm.GraalVmJavaScriptExecutionEngine langchain4j = new dev.langchain4j.code.graalvm.GraalVmJavaScriptExecutionEngine();
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
    String answer = langchain4j.execute(LANGCHAIN4J_JS);
    if (!answer.equals("42")) {
      throw new IllegalStateException("LangChain4j's engine answered " + answer);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    runner.close();
  }

  @Benchmark
  public ToolResponse javascriptWarm() {
    return runner.call(ToolRequest.of("js-inc", input, "bench"));
  }

  /** LangChain4j's JavaScript engine: a new context per call, in process. */
  @Benchmark
  public String langchain4jNewContext() {
    return langchain4j.execute(LANGCHAIN4J_JS);
  }

  @Benchmark
  public ToolResponse typescriptCached() {
    return runner.call(ToolRequest.of("ts-inc", input, "bench"));
  }
}
