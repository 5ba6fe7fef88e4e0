package dev.rcrt.core.internal;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The timer behind {@code TimeSource.system()}: one daemon thread runs every due task. Scheduling adds the task to a
 * set and wakes the thread only when the new deadline is earlier than its next wake-up (rare: most
 * deadlines are seconds away), so a tool call's deadline costs a set insert and remove, not a
 * timer-queue operation and a thread signal. The thread never blocks on a task beyond running it.
 */
public final class TimerThread {
  private static final Logger LOG = LoggerFactory.getLogger(TimerThread.class);
  private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(1);
  public static final TimerThread INSTANCE = new TimerThread();

  private final Set<Task> active = ConcurrentHashMap.newKeySet();
  private volatile long nextWake = System.nanoTime() + IDLE_NANOS;
  private volatile @Nullable Thread thread; // started on first use

  private TimerThread() {}

  /** Runs {@code task} on the timer thread once {@code delay} has passed; see {@code TimeSource#schedule}. */
  public Task schedule(Duration delay, Runnable task) {
    Task t = new Task(System.nanoTime() + Math.max(0, delay.toNanos()), task);
    Thread timer = thread();
    active.add(t);
    if (t.deadlineNanos - nextWake < 0) {
      nextWake = t.deadlineNanos;
      LockSupport.unpark(timer);
    }
    return t;
  }

  private Thread thread() {
    Thread t = thread;
    if (t == null) {
      synchronized (this) {
        t = thread;
        if (t == null) {
          t = new Thread(this::loop, "rcrt-timer");
          t.setDaemon(true);
          t.start();
          thread = t;
        }
      }
    }
    return t;
  }

  private void loop() {
    while (true) {
      long now = System.nanoTime();
      long earliest = now + IDLE_NANOS;
      for (Task t : active) {
        if (now - t.deadlineNanos >= 0) {
          active.remove(t);
          t.fire();
        } else if (t.deadlineNanos - earliest < 0) {
          earliest = t.deadlineNanos;
        }
      }
      nextWake = earliest;
      // a task added while the set was scanned compared itself with the old wake-up time: look again
      boolean missed = false;
      for (Task t : active) {
        missed |= t.deadlineNanos - earliest < 0;
      }
      if (!missed) {
        LockSupport.parkNanos(Math.max(0, earliest - System.nanoTime()));
      }
    }
  }

  /** One scheduled task. */
  public final class Task {
    final long deadlineNanos;
    private final Runnable task;
    private final AtomicBoolean settled = new AtomicBoolean();

    Task(long deadlineNanos, Runnable task) {
      this.deadlineNanos = deadlineNanos;
      this.task = task;
    }

    void fire() {
      if (settled.compareAndSet(false, true)) {
        try {
          task.run();
        } catch (RuntimeException | Error e) {
          LOG.warn("a timer task failed", e);
        }
      }
    }

    /** Cancels the task; true if it will not run because of this call. */
    public boolean cancel() {
      boolean cancelled = settled.compareAndSet(false, true);
      active.remove(this);
      return cancelled;
    }
  }
}
