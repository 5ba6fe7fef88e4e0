package dev.rcrt.tools.internal.loader.js;

import java.io.OutputStream;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.graalvm.polyglot.Engine;
import org.graalvm.polyglot.SandboxPolicy;

/**
 * What every JavaScript tool of one runner shares: the GraalJS {@link Engine} (code caches), the
 * thread that interrupts contexts at their deadline, and the TypeScript compiler. Created on the
 * first JavaScript tool; closed with the runner.
 */
public final class JsRuntime implements AutoCloseable {
  private final Engine engine;
  private final ScheduledExecutorService watchdog;
  private final TypeScriptCompiler typescript;

  public JsRuntime() {
    this.engine =
        Engine.newBuilder("js")
            .sandbox(SandboxPolicy.CONSTRAINED)
            .option("engine.WarnInterpreterOnly", "false")
            .out(OutputStream.nullOutputStream())
            .err(OutputStream.nullOutputStream())
            .build();
    this.watchdog =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "rcrt-js-watchdog");
              t.setDaemon(true);
              return t;
            });
    this.typescript = new TypeScriptCompiler(engine);
  }

  Engine engine() {
    return engine;
  }

  ScheduledExecutorService watchdog() {
    return watchdog;
  }

  TypeScriptCompiler typescript() {
    return typescript;
  }

  @Override
  public void close() {
    watchdog.shutdownNow();
    typescript.close();
    engine.close(true);
  }
}
