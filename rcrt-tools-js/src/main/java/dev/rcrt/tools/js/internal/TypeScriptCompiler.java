package dev.rcrt.tools.js.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.spi.DaemonThreads;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.js.internal.worker.GuestEngine;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Engine;
import org.graalvm.polyglot.HostAccess;
import org.graalvm.polyglot.PolyglotException;
import org.graalvm.polyglot.SandboxPolicy;
import org.graalvm.polyglot.Source;
import org.graalvm.polyglot.Value;
import org.jspecify.annotations.Nullable;

/**
 * Strips TypeScript types inside the JVM with the TypeScript compiler itself (the {@code typescript}
 * npm package from its WebJar, run in GraalJS through {@code ts.transpileModule}). Each distinct
 * source is transpiled once and cached by its checksum. Syntax errors come back with line and
 * column.
 *
 * <p>Transpiling is bounded: a source over {@link #MAX_SOURCE_CHARS} is refused before the compiler
 * sees it, a transpile past {@link #TIME_LIMIT} is interrupted, and a compiler failure (a source
 * nested deep enough to overflow its stack) is a {@code tool_definition_invalid} error and retires
 * that compiler. Up to {@link #COMPILERS} compilers run at once, each loaded on first need, so one
 * slow source does not hold every other tool's first transpile. The compiler runs in the host (it is
 * the TypeScript project's code, only its input is the tool author's), on an engine of its own.
 * Thread-safe.
 */
final class TypeScriptCompiler implements AutoCloseable {
  static final int MAX_SOURCE_CHARS = 1 << 20;
  static final Duration TIME_LIMIT = Duration.ofSeconds(10);
  static final int COMPILERS = 2;
  private static final String WEBJAR = "META-INF/maven/org.webjars.npm/typescript/pom.properties";
  private static volatile @Nullable String webJarVersion;
  private static final String TRANSPILE =
      "(src) => { const r = ts.transpileModule(src, {fileName: 'tool.ts', reportDiagnostics: true,"
          + " compilerOptions: {target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext}});"
          + " return JSON.stringify({js: r.outputText, diagnostics: (r.diagnostics || []).map(d => {"
          + " const lc = d.file ? d.file.getLineAndCharacterOfPosition(d.start) : {line: 0, character: 0};"
          + " return {line: lc.line + 1, column: lc.character + 1,"
          + " message: ts.flattenDiagnosticMessageText(d.messageText, ' ')}; })}); }";

  private final Engine engine;
  private final ScheduledExecutorService timer;
  private final ConcurrentHashMap<String, String> cache = new ConcurrentHashMap<>();
  private final BlockingQueue<Compiler> idle = new ArrayBlockingQueue<>(COMPILERS);
  private final AtomicInteger created = new AtomicInteger();
  private volatile boolean closed;

  /** One loaded compiler. */
  private record Compiler(Context context, Value transpile) {}

  /** Creates the compiler's own GraalJS engine and timer; the compilers themselves load on first need. */
  TypeScriptCompiler() {
    this.engine = GuestEngine.constrainedEngine();
    this.timer = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(DaemonThreads.factory("rcrt-ts-timer"));
  }

  /**
   * The JavaScript for {@code source}.
   *
   * @param checksum identifies the source, for the cache
   * @throws ToolException {@code tool_definition_invalid} listing each error with line and column,
   *     or naming the limit the source passed
   */
  String toJavaScript(String tool, String source, String checksum) {
    String cached = cache.get(checksum);
    if (cached != null) {
      return cached;
    }
    if (source.length() > MAX_SOURCE_CHARS) {
      throw new ToolException(
          ToolErrorCode.TOOL_DEFINITION_INVALID,
          "tool '" + tool + "' TypeScript source is " + source.length() + " characters; the limit is " + MAX_SOURCE_CHARS);
    }
    JsonNode result = RcrtJson.parse(transpile(tool, source));
    List<String> errors = new ArrayList<>();
    for (JsonNode d : result.path("diagnostics")) {
      errors.add("line " + d.path("line").asInt() + ", column " + d.path("column").asInt() + ": " + d.path("message").asText());
    }
    if (!errors.isEmpty()) {
      throw new ToolException(
          ToolErrorCode.TOOL_DEFINITION_INVALID, "tool '" + tool + "' TypeScript does not compile: " + String.join("; ", errors));
    }
    String js = result.path("js").asText();
    cache.put(checksum, js);
    return js;
  }

  private String transpile(String tool, String source) {
    Compiler compiler = acquire(tool);
    boolean healthy = false;
    ScheduledFuture<?> alarm = timer.schedule(() -> interrupt(compiler), TIME_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
    try {
      String out = compiler.transpile().execute(source).asString();
      healthy = true;
      return out;
    } catch (PolyglotException e) {
      if (e.isInterrupted()) {
        healthy = true;
        throw new ToolException(
            ToolErrorCode.TOOL_DEFINITION_INVALID,
            "tool '" + tool + "' TypeScript took longer than " + TIME_LIMIT.toSeconds() + " s to transpile; simplify or split the source");
      }
      throw new ToolException(
          ToolErrorCode.TOOL_DEFINITION_INVALID, "tool '" + tool + "' TypeScript could not be transpiled: " + e.getMessage());
    } finally {
      alarm.cancel(false);
      release(compiler, healthy);
    }
  }

  private static void interrupt(Compiler compiler) {
    try {
      compiler.context().interrupt(Duration.ofSeconds(1));
    } catch (java.util.concurrent.TimeoutException | IllegalStateException e) {
      compiler.context().close(true);
    }
  }

  private Compiler acquire(String tool) {
    Compiler ready = idle.poll();
    if (ready != null) {
      return ready;
    }
    if (created.incrementAndGet() <= COMPILERS) {
      try {
        return load();
      } catch (RuntimeException e) {
        created.decrementAndGet();
        throw e;
      }
    }
    created.decrementAndGet();
    try {
      Compiler waited = idle.poll(TIME_LIMIT.toMillis() * 2, TimeUnit.MILLISECONDS);
      if (waited == null) {
        throw new ToolException(
            ToolErrorCode.TOOL_DEFINITION_INVALID, "tool '" + tool + "' TypeScript could not be transpiled: every compiler stayed busy");
      }
      return waited;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ToolException(ToolErrorCode.TOOL_FAILED, "tool '" + tool + "' was interrupted waiting for the TypeScript compiler");
    }
  }

  /** A healthy compiler goes back for the next source; one that failed is closed and replaced on demand. */
  private void release(Compiler compiler, boolean healthy) {
    if (healthy && !closed && idle.offer(compiler)) {
      return;
    }
    created.decrementAndGet();
    try {
      compiler.context().close(true);
    } catch (RuntimeException e) {
      // already closed
    }
  }

  private Compiler load() {
    Context context =
        Context.newBuilder("js")
            .engine(engine)
            .sandbox(SandboxPolicy.CONSTRAINED)
            .allowHostAccess(HostAccess.CONSTRAINED)
            .out(OutputStream.nullOutputStream())
            .err(OutputStream.nullOutputStream())
            .build();
    try {
      context.eval(Source.newBuilder("js", read(scriptPath()), "typescript.js").buildLiteral());
      return new Compiler(context, context.eval("js", TRANSPILE));
    } catch (RuntimeException e) {
      context.close(true);
      throw e;
    }
  }

  /**
   * The compiler's name and version, such as {@code typescript 5.6.3}, read from its WebJar without
   * loading it.
   *
   * @throws ToolException {@code tool_unsupported} when the WebJar is not on the class path
   */
  static String version() {
    return "typescript " + webJarVersion();
  }

  /** The WebJar's version, read once (a missing WebJar is asked again, and fails again, each time). */
  private static String webJarVersion() {
    String known = webJarVersion;
    if (known == null) {
      known = readWebJarVersion();
      webJarVersion = known;
    }
    return known;
  }


  private static String readWebJarVersion() {
    Properties props = new Properties();
    try (InputStream in = resource(WEBJAR)) {
      props.load(in);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + WEBJAR, e);
    }
    return props.getProperty("version");
  }

  private static String scriptPath() {
    return "META-INF/resources/webjars/typescript/" + webJarVersion() + "/lib/typescript.js";
  }

  private static String read(String path) {
    try (InputStream in = resource(path)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + path, e);
    }
  }

  private static InputStream resource(String path) {
    InputStream in = TypeScriptCompiler.class.getClassLoader().getResourceAsStream(path);
    if (in == null) {
      throw new ToolException(
          ToolErrorCode.TOOL_UNSUPPORTED,
          "TypeScript tools need org.webjars.npm:typescript on the classpath (" + path + " not found)");
    }
    return in;
  }

  @Override
  public void close() {
    closed = true;
    Compiler c;
    while ((c = idle.poll()) != null) {
      c.context().close(true);
    }
    timer.shutdownNow();
    engine.close(true);
  }
}
