package dev.rcrt.tools.js;

import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolRuntime;
import dev.rcrt.tools.js.internal.JsLoader;

/**
 * The {@code breadcrumb} implementation type: JavaScript or TypeScript kept in a breadcrumb, run on
 * GraalJS. Found by the {@link dev.rcrt.tools.ToolRunner} through {@link java.util.ServiceLoader}
 * whenever {@code rcrt-tools-js} is on the classpath; nothing to configure.
 *
 * <p>The code exports {@code execute(input, context)} (or the {@code handler} the spec names), either
 * inline in a {@code tool.code.v1} ({@code code{language, source}}) or in another breadcrumb named
 * by {@code {runtime, breadcrumb_id, handler}} (its {@code context.code}), which must be last written
 * by someone the trust policy trusts. {@code context} is RCRT's: {@code api} (the store, through the
 * tool's own view), {@code secrets}, {@code config}, {@code request}; {@code fetch} reaches only the
 * hosts {@code permissions.net} lists and the trust policy allows; timers run on the call's own
 * event loop. TypeScript is transpiled once per source checksum.
 *
 * <p>Isolation and limits: each call runs in a fresh GraalJS context inside a worker JVM of its own
 * (no Java access, no threads, no I/O but what the host answers), bounded by the tool's time limit
 * (the worker cancels the call, and is killed if it does not stop), {@code limits.memory_mb}
 * (default 256), a statement budget and a 64 MiB cap on what it returns. Time a call waits for a
 * busy worker counts against its limit. Workers start with the running JVM's {@code java} and a
 * class path computed from this runtime's own class loader: its URLs (jars nested in a Spring Boot
 * fat jar are copied out to a temporary directory first), the module path and the class path.
 *
 * <p>Thread-safe. The worker processes belong to this instance: every runner given the same
 * instance ({@code ToolRunner.Builder.runtime}) shares them, and the last such runner to close
 * closes the runtime. {@link #close()} kills the workers (calls still running fail), deletes the
 * copied jars and releases the TypeScript compiler.
 */
public final class JavaScriptRuntime implements ToolRuntime {
  /** The implementation type this runtime runs: {@value}. */
  public static final String TYPE = "breadcrumb";

  private final JsLoader loader = new JsLoader();

  /** A runtime; found through {@link java.util.ServiceLoader}, or given to {@code ToolRunner.Builder.runtime}. */
  public JavaScriptRuntime() {}

  @Override
  public String type() {
    return TYPE;
  }

  /**
   * @throws dev.rcrt.tools.ToolException {@code tool_definition_invalid} for no source, an unknown
   *     language, a syntax or TypeScript error, a missing handler export or a module that fails while
   *     evaluated; {@code tool_load_failed} / {@code tool_untrusted} for a code breadcrumb that is
   *     missing or last written by someone the policy does not trust
   */
  @Override
  public Loaded load(ToolDefinition definition, Services services) {
    return loader.load(definition, services);
  }

  @Override
  public void close() {
    loader.close();
  }
}
