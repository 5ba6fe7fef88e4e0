package dev.rcrt.agent.internal.loop;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Pools of daemon threads, so that an executor left open never keeps a JVM alive. */
public final class Pools {
  private Pools() {}

  /** {@code size} threads named {@code name-N}; {@code size} 0 for an unbounded cached pool. */
  public static ExecutorService daemon(int size, String name) {
    AtomicInteger n = new AtomicInteger();
    ThreadFactory threads =
        r -> {
          Thread t = new Thread(r, name + "-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        };
    return size == 0 ? Executors.newCachedThreadPool(threads) : Executors.newFixedThreadPool(size, threads);
  }
}
