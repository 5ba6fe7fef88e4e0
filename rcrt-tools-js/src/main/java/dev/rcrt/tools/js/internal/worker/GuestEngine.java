package dev.rcrt.tools.js.internal.worker;

import dev.rcrt.core.spi.DaemonThreads;
import java.io.OutputStream;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.graalvm.polyglot.Engine;
import org.graalvm.polyglot.SandboxPolicy;

/**
 * What every call in one worker shares: the GraalJS {@link Engine} (code caches), the timer that
 * fires at each call's deadline and samples its allocations, the threads that then cancel the call
 * (so the timer never waits on a guest), and the thread that prepares fresh contexts ahead of calls
 * and closes used ones.
 */
public final class GuestEngine implements AutoCloseable {
  private final Engine engine;
  private final ScheduledExecutorService watchdog;
  private final ExecutorService stopper;
  private final ExecutorService preparer;

  GuestEngine() {
    this.engine = constrainedEngine();
    this.watchdog = Executors.newSingleThreadScheduledExecutor(DaemonThreads.factory("rcrt-js-watchdog"));
    this.stopper = Executors.newCachedThreadPool(DaemonThreads.factory("rcrt-js-stopper"));
    this.preparer = Executors.newSingleThreadExecutor(DaemonThreads.factory("rcrt-js-prepare"));
  }

  /**
   * A GraalJS engine for {@link SandboxPolicy#CONSTRAINED} contexts, silent (its output discarded,
   * no warning that it runs interpreted). The caller closes it.
   */
  public static Engine constrainedEngine() {
    return Engine.newBuilder("js")
        .sandbox(SandboxPolicy.CONSTRAINED)
        .option("engine.WarnInterpreterOnly", "false")
        .out(OutputStream.nullOutputStream())
        .err(OutputStream.nullOutputStream())
        .build();
  }


  Engine engine() {
    return engine;
  }

  ScheduledExecutorService watchdog() {
    return watchdog;
  }

  ExecutorService stopper() {
    return stopper;
  }

  ExecutorService preparer() {
    return preparer;
  }

  @Override
  public void close() {
    watchdog.shutdownNow();
    stopper.shutdownNow();
    preparer.shutdownNow();
    engine.close(true);
  }
}
