package dev.rcrt.tools.internal.chain;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * One daemon thread that interrupts calling threads whose Java tool outlives its deadline, so Java
 * tools run on the caller's thread with no hand-off. Starting a watch adds it to a set and wakes the
 * thread only when the new deadline is earlier than the thread's next wake-up (rare: most deadlines
 * are seconds away), so a call costs a set insert and remove, not a timer-queue operation and a
 * thread signal. The watchdog never blocks: it sets a flag and interrupts. {@link Watch#close()}
 * clears an interrupt the watchdog delivered, so no thread leaves a call interrupted by it.
 *
 * <p>A Java handler that ignores interruption runs on until it returns (Java code cannot be stopped
 * safely from outside); its result is then discarded as a timeout. Java handlers are host code.
 */
final class Watchdog {
  private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final Set<Watch> ACTIVE = ConcurrentHashMap.newKeySet();
  private static volatile long nextWake = System.nanoTime() + IDLE_NANOS;
  private static final Thread THREAD = start();

  private Watchdog() {}

  private static Thread start() {
    Thread t = new Thread(Watchdog::loop, "rcrt-tool-watchdog");
    t.setDaemon(true);
    t.start();
    return t;
  }

  private static void loop() {
    while (true) {
      long now = System.nanoTime();
      long earliest = now + IDLE_NANOS;
      for (Watch w : ACTIVE) {
        if (now - w.deadlineNanos >= 0) {
          w.fire();
          ACTIVE.remove(w);
        } else if (w.deadlineNanos - earliest < 0) {
          earliest = w.deadlineNanos;
        }
      }
      nextWake = earliest;
      // a watch added while the set was scanned compared itself with the old wake-up time: look again
      boolean missed = false;
      for (Watch w : ACTIVE) {
        missed |= w.deadlineNanos - earliest < 0;
      }
      if (!missed) {
        LockSupport.parkNanos(Math.max(0, earliest - System.nanoTime()));
      }
    }
  }

  /** Starts watching the current thread for {@code limit}. */
  static Watch start(Duration limit) {
    Watch w = new Watch(Thread.currentThread(), System.nanoTime() + limit.toNanos());
    ACTIVE.add(w);
    if (w.deadlineNanos - nextWake < 0) {
      nextWake = w.deadlineNanos;
      LockSupport.unpark(THREAD);
    }
    return w;
  }

  /** One watched call. */
  static final class Watch implements AutoCloseable {
    private static final int RUNNING = 0;
    private static final int INTERRUPTING = 1;
    private static final int FIRED = 2;
    private static final int DONE = 3;

    private final Thread thread;
    private final long deadlineNanos;
    private final AtomicInteger state = new AtomicInteger(RUNNING);

    private Watch(Thread thread, long deadlineNanos) {
      this.thread = thread;
      this.deadlineNanos = deadlineNanos;
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
      return s == INTERRUPTING || s == FIRED || System.nanoTime() - deadlineNanos >= 0;
    }

    /** Stops watching; clears the interrupt if the watchdog delivered one. Call on the watched thread. */
    @Override
    public void close() {
      ACTIVE.remove(this);
      if (state.compareAndSet(RUNNING, DONE)) {
        return;
      }
      while (state.get() == INTERRUPTING) {
        Thread.onSpinWait();
      }
      Thread.interrupted();
    }
  }
}
