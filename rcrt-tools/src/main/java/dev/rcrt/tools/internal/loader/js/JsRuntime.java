package dev.rcrt.tools.internal.loader.js;

import java.io.OutputStream;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.graalvm.polyglot.Engine;
import org.graalvm.polyglot.SandboxPolicy;

/**
 * What every JavaScript tool of one runner shares: the GraalJS {@link Engine} (code caches), the
 * timer that fires at each call's deadline, the threads that then stop the call (so one guest that
 * resists an interrupt never delays another's stop), and the TypeScript compiler. Created on the
 * first JavaScript tool; closed with the runner.
 */
public final class JsRuntime implements AutoCloseable {
  private final Engine engine;
  private final ScheduledExecutorService watchdog;
  private final java.util.concurrent.ExecutorService stopper;
  private final java.util.concurrent.ExecutorService preparer;
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
        Executors.newSingleThreadScheduledExecutor(daemon("rcrt-js-watchdog"));
    this.stopper =
        Executors.newCachedThreadPool(daemon("rcrt-js-stopper"));
    this.preparer =
        Executors.newSingleThreadExecutor(daemon("rcrt-js-prepare"));
    this.typescript = new TypeScriptCompiler(engine, watchdog);
  }

  /** Daemon threads named {@code name}: none of them may keep the JVM alive. */
  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  /** Where fresh contexts are prepared ahead of calls, and used ones closed, off the calling threads. */
  java.util.concurrent.ExecutorService preparer() {
    return preparer;
  }

  /** Where stopping a context past its deadline happens, so that one stubborn guest delays no other's stop. */
  java.util.concurrent.ExecutorService stopper() {
    return stopper;
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
    stopper.shutdownNow();
    preparer.shutdownNow();
    typescript.close();
    engine.close(true);
  }
}
