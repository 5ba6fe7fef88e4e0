package dev.rcrt.testing;

import dev.rcrt.core.TimeSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Time that only moves when told to, for testing time-dependent behaviour without waiting: a wall
 * {@link Clock} (a store's TTLs) and a {@link TimeSource} (deadlines, timeouts and back-offs of the
 * tool runner, the model client and the agent loop). Pass the same instance to each.
 *
 * <p>{@link #advance} moves both, then runs every timer that has come due, in deadline order, on
 * the calling thread; {@link #sleep} advances by the duration and returns. A test makes a tool time
 * out by advancing the clock from inside the tool (or from any other thread) past its limit.
 *
 * <p>Thread-safe.
 */
public final class TestClock extends Clock implements TimeSource {
  private final Object lock = new Object();
  private final PriorityQueue<Entry> timers = new PriorityQueue<>(Comparator.comparingLong(Entry::deadline).thenComparingLong(Entry::order));
  private Instant now;
  private long nanos;
  private long scheduled;

  /** A clock standing at {@code start}; its {@link #nanoTime()} starts at zero. */
  public TestClock(Instant start) {
    this.now = start;
  }

  /** A clock standing at 2026-01-01T00:00:00Z. */
  public TestClock() {
    this(Instant.parse("2026-01-01T00:00:00Z"));
  }

  /**
   * Moves the clock forward by {@code by} and runs the timers that are due.
   *
   * @throws IllegalArgumentException if {@code by} is negative: monotonic time never goes back
   */
  public void advance(Duration by) {
    if (by.isNegative()) {
      throw new IllegalArgumentException("a TestClock moves forward only, not by " + by);
    }
    List<Entry> due = new ArrayList<>();
    synchronized (lock) {
      now = now.plus(by);
      nanos += by.toNanos();
      while (!timers.isEmpty() && timers.peek().deadline() - nanos <= 0) {
        due.add(timers.poll());
      }
    }
    due.forEach(Entry::fire);
  }

  @Override
  public Instant instant() {
    synchronized (lock) {
      return now;
    }
  }

  @Override
  public long nanoTime() {
    synchronized (lock) {
      return nanos;
    }
  }

  /** Runs {@code task} when {@link #advance} passes {@code delay} from now; a delay of zero or less runs it now. */
  @Override
  public Timer schedule(Duration delay, Runnable task) {
    return set(() -> delay, task);
  }

  /**
   * Runs {@code task} when {@link #advance} brings this clock's {@link #instant()} to {@code at}; a
   * time already reached runs it now. The clock is read and the timer set in one step, so an
   * {@code advance} on another thread cannot come between them and leave the timer a jump late.
   */
  @Override
  public Timer scheduleAt(Instant at, Runnable task) {
    return set(() -> Duration.between(now, at), task);
  }

  /**
   * Runs {@code task} when {@link #advance} brings {@link #nanoTime()} to {@code nanoTime}; a time
   * already reached runs it now. Read and set in one step, as {@link #scheduleAt}.
   */
  @Override
  public Timer scheduleAtNanoTime(long nanoTime, Runnable task) {
    return set(() -> Duration.ofNanos(nanoTime - nanos), task);
  }

  /**
   * A timer {@code delay} from now, the delay worked out under {@link #lock} with the timer set (so
   * an {@code advance} on another thread cannot come between them); run at once when it is due
   * already.
   */
  private Timer set(java.util.function.Supplier<Duration> delay, Runnable task) {
    Entry e;
    Duration in;
    synchronized (lock) {
      in = delay.get();
      e = entry(in, task);
    }
    return in.compareTo(Duration.ZERO) > 0 ? e : e.fire();
  }

  /** Under {@link #lock}: a timer {@code delay} from now, queued unless it is due already (its caller runs it then). */
  private Entry entry(Duration delay, Runnable task) {
    Entry e = new Entry(nanos + Math.max(0, delay.toNanos()), scheduled++, task);
    if (delay.compareTo(Duration.ZERO) > 0) {
      timers.add(e);
      lock.notifyAll(); // for awaitPendingTimers
    }
    return e;
  }

  /** Advances the clock by {@code duration}: a sleeping caller returns at once. */
  @Override
  public void sleep(Duration duration) throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    advance(duration);
  }

  /** How many timers are waiting. */
  public int pendingTimers() {
    synchronized (lock) {
      return timers.size();
    }
  }

  /**
   * Waits until at least {@code count} timers are pending: until the code under test has scheduled
   * what the test means to fire with {@link #advance}, as it is told, not by polling.
   *
   * @param within how long to wait, in real time
   * @return whether that many timers were pending before {@code within} passed
   * @throws InterruptedException if the waiting thread is interrupted
   */
  public boolean awaitPendingTimers(int count, Duration within) throws InterruptedException {
    return MonitorWaits.until(lock, () -> timers.size() >= count, within);
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  private final class Entry implements Timer {
    private final long deadline;
    private final long order;
    private final Runnable task;
    private boolean settled;

    Entry(long deadline, long order, Runnable task) {
      this.deadline = deadline;
      this.order = order;
      this.task = task;
    }

    long deadline() {
      return deadline;
    }

    long order() {
      return order;
    }

    /** Runs the task unless it ran or was cancelled; returns this timer. */
    Entry fire() {
      synchronized (lock) {
        if (settled) {
          return this;
        }
        settled = true;
      }
      task.run();
      return this;
    }

    @Override
    public boolean cancel() {
      synchronized (lock) {
        if (settled) {
          return false;
        }
        settled = true;
        timers.remove(this);
        return true;
      }
    }
  }
}
