package dev.rcrt.testing;

import dev.rcrt.core.TimeSource;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A {@link TimeSource} that hands every call to another ({@link #delegate}): the base of a test's
 * time source that watches or bends some calls (counts the timers set, moves the clock at a chosen
 * reading) and leaves the rest alone. Override what you watch. Thread-safe if the delegate is.
 */
public class ForwardingTimeSource implements TimeSource {
  /** The source every call goes to unless overridden. */
  protected final TimeSource delegate;

  /** Forwards every call to {@code delegate}, often a {@link TestClock}. */
  public ForwardingTimeSource(TimeSource delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  @Override
  public Instant instant() {
    return delegate.instant();
  }

  @Override
  public long nanoTime() {
    return delegate.nanoTime();
  }

  @Override
  public Timer schedule(Duration delay, Runnable task) {
    return delegate.schedule(delay, task);
  }

  /** Forwarded as it is, so a delegate that sets a dated timer in one step ({@link TestClock}) still does. */
  @Override
  public Timer scheduleAt(Instant at, Runnable task) {
    return delegate.scheduleAt(at, task);
  }

  /** Forwarded as it is, like {@link #scheduleAt}. */
  @Override
  public Timer scheduleAtNanoTime(long nanoTime, Runnable task) {
    return delegate.scheduleAtNanoTime(nanoTime, task);
  }

  @Override
  public void sleep(Duration duration) throws InterruptedException {
    delegate.sleep(duration);
  }
}
