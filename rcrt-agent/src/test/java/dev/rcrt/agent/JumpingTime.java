package dev.rcrt.agent;

import dev.rcrt.testing.ForwardingTimeSource;
import dev.rcrt.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A {@link TestClock} seen through a source whose time jumps right after a reading, once armed: the
 * reader gets the time from before the jump, as a thread that another one preempted between reading
 * the clock and acting on the reading would. Everything else goes to the clock.
 */
final class JumpingTime extends ForwardingTimeSource {
  private final TestClock clock;
  private final AtomicReference<Duration> armed = new AtomicReference<>();
  private final CountDownLatch timerSet = new CountDownLatch(1);
  private volatile boolean wasArmed;

  JumpingTime(TestClock clock) {
    super(clock);
    this.clock = clock;
  }

  /** The next reading of {@link #instant()} moves the clock on by {@code by} once it has read it. */
  void jumpAfterNextReading(Duration by) {
    armed.set(by);
    wasArmed = true;
  }

  /** Whether a timer was set since {@link #jumpAfterNextReading}, within {@code seconds} of real time. */
  boolean awaitTimerSetAfterArming(long seconds) throws InterruptedException {
    return timerSet.await(seconds, java.util.concurrent.TimeUnit.SECONDS);
  }

  @Override
  public Instant instant() {
    Instant read = clock.instant();
    Duration jump = armed.getAndSet(null);
    if (jump != null) {
      clock.advance(jump);
    }
    return read;
  }

  @Override
  public Timer schedule(Duration delay, Runnable task) {
    Timer t = super.schedule(delay, task);
    set();
    return t;
  }

  @Override
  public Timer scheduleAt(Instant at, Runnable task) {
    Timer t = super.scheduleAt(at, task);
    set();
    return t;
  }

  @Override
  public Timer scheduleAtNanoTime(long nanoTime, Runnable task) {
    Timer t = super.scheduleAtNanoTime(nanoTime, task);
    set();
    return t;
  }

  private void set() {
    if (wasArmed) {
      timerSet.countDown();
    }
  }
}
