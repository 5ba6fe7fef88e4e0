package dev.rcrt.core.spi;

import dev.rcrt.core.TimeSource;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * The one-shot timers one owner (a run driver, a listening tool runner) sets on a {@link
 * TimeSource}, all cancelled when the owner closes. A timer is forgotten once it ran or was
 * cancelled, even one that ran before it was set here (a time already past runs at once, on the
 * calling thread for a test source), so an owner that sets timers for ever keeps only those pending.
 *
 * <p>Tasks run where the source runs them (its timer thread, or the thread that moves a test
 * source's time): short, never blocking. Thread-safe.
 */
public final class OwnedTimers {
  private final TimeSource time;
  private final Set<TimeSource.Timer> pending = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  /** Timers on {@code time}. */
  public OwnedTimers(TimeSource time) {
    this.time = time;
  }

  /** Runs {@code task} once {@code delay} has passed (zero or less: as soon as possible); nothing after {@link #cancelAll}. */
  public TimeSource.Timer after(Duration delay, Runnable task) {
    return set(t -> time.schedule(delay, t), task);
  }

  /** Runs {@code task} once the source's wall time reaches {@code at} ({@link TimeSource#scheduleAt}); nothing after {@link #cancelAll}. */
  public TimeSource.Timer at(Instant at, Runnable task) {
    return set(t -> time.scheduleAt(at, t), task);
  }

  /** How many timers are set and have neither run nor been cancelled. */
  public int pending() {
    return pending.size();
  }

  /** Cancels every pending timer; timers set from now on never run. Idempotent. */
  public void cancelAll() {
    closed = true;
    pending.forEach(TimeSource.Timer::cancel);
    pending.clear();
  }

  private TimeSource.Timer set(Function<Runnable, TimeSource.Timer> schedule, Runnable task) {
    if (closed) {
      return () -> false;
    }
    AtomicReference<TimeSource.Timer> self = new AtomicReference<>();
    AtomicBoolean ran = new AtomicBoolean();
    TimeSource.Timer timer = schedule.apply(() -> {
      ran.set(true);
      TimeSource.Timer mine = self.get();
      if (mine != null) {
        pending.remove(mine);
      }
      if (!closed) {
        task.run();
      }
    });
    TimeSource.Timer owned = () -> {
      pending.remove(self.get());
      return timer.cancel();
    };
    self.set(owned);
    pending.add(owned);
    if (ran.get() || closed) { // it ran before it was known here (a time already past), or the owner closed meanwhile
      pending.remove(owned);
      timer.cancel();
    }
    return owned;
  }
}
