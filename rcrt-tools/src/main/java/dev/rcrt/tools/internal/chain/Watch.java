package dev.rcrt.tools.internal.chain;

import dev.rcrt.core.TimeSource;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Interrupts the calling thread when its Java tool outlives the deadline, so Java tools run on the
 * caller's thread with no hand-off. The interrupt is a {@link TimeSource} timer: for the system
 * source, one set insert and remove per call on a shared timer thread, which never blocks. {@link
 * #close()} clears an interrupt the watch delivered, so no thread leaves a call interrupted by it.
 *
 * <p>A Java handler that ignores interruption runs on until it returns (Java code cannot be stopped
 * safely from outside); its result is then discarded as a timeout. Java handlers are host code.
 */
final class Watch implements AutoCloseable {
  private static final int RUNNING = 0;
  private static final int INTERRUPTING = 1;
  private static final int FIRED = 2;
  private static final int DONE = 3;

  private final Thread thread = Thread.currentThread();
  private final TimeSource time;
  private final long deadlineNanos;
  private final AtomicInteger state = new AtomicInteger(RUNNING);
  private final TimeSource.Timer timer;

  /** Starts watching the current thread for {@code limit}. */
  Watch(TimeSource time, Duration limit) {
    this.time = time;
    this.deadlineNanos = time.nanoTime() + limit.toNanos();
    this.timer = time.schedule(limit, this::fire);
  }

  private void fire() {
    if (state.compareAndSet(RUNNING, INTERRUPTING)) {
      thread.interrupt();
      state.set(FIRED);
    }
  }

  /** Whether the deadline has passed (whether or not the thread was interrupted yet). */
  boolean expired() {
    int s = state.get();
    return s == INTERRUPTING || s == FIRED || time.nanoTime() - deadlineNanos >= 0;
  }

  /** Stops watching; clears the interrupt if the watch delivered one. Call on the watched thread. */
  @Override
  public void close() {
    timer.cancel();
    if (state.compareAndSet(RUNNING, DONE)) {
      return;
    }
    while (state.get() == INTERRUPTING) {
      Thread.onSpinWait();
    }
    Thread.interrupted();
  }
}
