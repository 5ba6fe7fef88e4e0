package dev.rcrt.tools.internal.chain;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One daemon thread that interrupts calling threads whose Java tool outlives its deadline, so Java
 * tools run on the caller's thread with no hand-off. The watchdog never blocks: it sets a flag and
 * interrupts. {@link Watch#close()} tells whether the deadline passed and clears an interrupt the
 * watchdog delivered, so no thread leaves a call interrupted by it.
 *
 * <p>A Java handler that ignores interruption runs on until it returns (Java code cannot be stopped
 * safely from outside); its result is then discarded as a timeout. Java handlers are host code.
 */
final class Watchdog {
  private static final ScheduledThreadPoolExecutor TIMER = timer();

  private Watchdog() {}

  private static ScheduledThreadPoolExecutor timer() {
    ScheduledThreadPoolExecutor t =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread thread = new Thread(r, "rcrt-tool-watchdog");
              thread.setDaemon(true);
              return thread;
            });
    t.setRemoveOnCancelPolicy(true);
    return t;
  }

  /** Starts watching the current thread for {@code limit}. */
  static Watch start(Duration limit) {
    return new Watch(Thread.currentThread(), limit);
  }

  /** One watched call. */
  static final class Watch implements AutoCloseable {
    private static final int RUNNING = 0;
    private static final int INTERRUPTING = 1;
    private static final int FIRED = 2;
    private static final int DONE = 3;

    private final long deadlineNanos;
    private final AtomicInteger state = new AtomicInteger(RUNNING);
    private final ScheduledFuture<?> alarm;

    private Watch(Thread thread, Duration limit) {
      this.deadlineNanos = System.nanoTime() + limit.toNanos();
      this.alarm =
          TIMER.schedule(
              () -> {
                if (state.compareAndSet(RUNNING, INTERRUPTING)) {
                  thread.interrupt();
                  state.set(FIRED);
                }
              },
              limit.toNanos(),
              TimeUnit.NANOSECONDS);
    }

    /** Whether the deadline has passed (whether or not the alarm fired yet). */
    boolean expired() {
      int s = state.get();
      return s == INTERRUPTING || s == FIRED || System.nanoTime() - deadlineNanos >= 0;
    }

    /**
     * Stops watching; clears the interrupt if the watchdog delivered one. Call on the watched thread.
     */
    @Override
    public void close() {
      if (state.compareAndSet(RUNNING, DONE)) {
        alarm.cancel(false);
        return;
      }
      while (state.get() == INTERRUPTING) {
        Thread.onSpinWait();
      }
      Thread.interrupted();
    }
  }
}
