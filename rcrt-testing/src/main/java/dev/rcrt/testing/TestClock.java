package dev.rcrt.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock that only moves when told to, for testing time-dependent behaviour (TTLs) without
 * sleeping. Thread-safe.
 */
public final class TestClock extends Clock {
  private final AtomicReference<Instant> now;

  /** A clock standing at {@code start}. */
  public TestClock(Instant start) {
    this.now = new AtomicReference<>(start);
  }

  /** Moves the clock forward (or back, for a negative duration). */
  public void advance(Duration by) {
    now.updateAndGet(t -> t.plus(by));
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
