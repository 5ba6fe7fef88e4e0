package dev.rcrt.core.spi;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Daemon threads for the SDK's own pools, so that a store, runner or executor left open never keeps a JVM alive. */
public final class DaemonThreads {
  private DaemonThreads() {}

  /** Daemon threads named {@code name-1}, {@code name-2}, … */
  public static ThreadFactory factory(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /** A pool of {@code size} daemon threads named {@code name-N}; {@code size} 0 for an unbounded cached pool. */
  public static ExecutorService pool(int size, String name) {
    return size == 0 ? Executors.newCachedThreadPool(factory(name)) : Executors.newFixedThreadPool(size, factory(name));
  }

  /**
   * Interrupts {@code thread} and waits, at most {@code max}, for it to end, so that what it was
   * doing does not meet what its owner closes next (a pool, an index). Returns at once when called
   * from {@code thread} itself or when it was never started; an interrupt of the caller while it
   * waits ends the wait and is kept.
   */
  public static void stop(Thread thread, Duration max) {
    thread.interrupt();
    if (Thread.currentThread() == thread) {
      return;
    }
    try {
      thread.join(max.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
