package dev.rcrt.core;

import dev.rcrt.core.internal.TimerThread;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Wall time, monotonic time, one-shot timers and waits: the one clock of the SDK, the seam through which the tool runner, a call's
 * deadline, the HTTP tool runtime, the model client's retries and the agent loop measure time and
 * wait. Production code uses {@link #system()}; tests pass a source they move by hand ({@code
 * dev.rcrt.testing.TestClock}), so a timeout fires when the test says so instead of after real
 * time.
 *
 * <p>Runtimes that wait on something outside the JVM (a JavaScript worker process, a container, the
 * JDK {@code HttpClient}'s own timeouts) keep real time; the limits they are given are taken from
 * this source's deadline.
 *
 * <p>Implementations are thread-safe.
 */
public interface TimeSource {
  /**
   * The wall-clock time now: the one reading of wall time for what the SDK judges by date (lease
   * ends, approval expiries, a run's deadline, TTLs of claims). The system source reads {@link
   * Instant#now()}; a test source answers its own time, which moves only when the test moves it.
   * Never null.
   */
  Instant instant();

  /**
   * Monotonic nanoseconds, as {@link System#nanoTime()}: only the difference of two readings means
   * anything, and it never decreases.
   */
  long nanoTime();

  /**
   * Runs {@code task} once when {@code delay} has passed, unless it is cancelled first. Tasks run on
   * a timer thread shared by everything that uses the source (or, for a test source, on the thread
   * that moves the time), so they must be short and must not block: interrupt a thread, complete a
   * future. A task that throws is logged and does not stop other tasks.
   *
   * @param delay zero or more; zero or negative runs the task as soon as possible
   * @return a handle to cancel the task; never null
   */
  Timer schedule(Duration delay, Runnable task);

  /**
   * Runs {@code task} once when this source's wall time ({@link #instant()}) reaches {@code at},
   * unless it is cancelled first: a wake-up set for a date (a deadline, an expiry), on the same
   * thread as {@link #schedule}. The default reads {@link #instant()} and schedules the difference;
   * a source whose time can jump between those two steps (a test source moved by another thread)
   * overrides it to do both in one step, so the task is never set a jump too late.
   *
   * @param at when to run; a time already past runs the task as soon as possible
   * @return a handle to cancel the task; never null
   */
  default Timer scheduleAt(Instant at, Runnable task) {
    Duration in = Duration.between(instant(), at);
    return schedule(in.isNegative() ? Duration.ZERO : in, task);
  }

  /**
   * Runs {@code task} once when this source's {@link #nanoTime()} reaches {@code nanoTime}, unless it
   * is cancelled first: a wake-up set for a point on the monotonic clock (a lease renewal due a
   * fixed time after the last was sent), on the same thread as {@link #schedule}. The default reads
   * {@link #nanoTime()} and schedules the difference; a source whose time can jump between those two
   * steps (a test source moved by another thread) overrides it to do both in one step, as for
   * {@link #scheduleAt}.
   *
   * @param nanoTime a reading of {@link #nanoTime()}'s scale; one already reached runs the task as
   *     soon as possible
   * @return a handle to cancel the task; never null
   */
  default Timer scheduleAtNanoTime(long nanoTime, Runnable task) {
    return schedule(Duration.ofNanos(Math.max(0, nanoTime - nanoTime())), task);
  }

  /**
   * Waits for {@code duration} (a retry's back-off). The system source sleeps; a test source moves
   * its time forward by {@code duration} and returns at once.
   *
   * @throws InterruptedException if the thread is interrupted while waiting
   */
  void sleep(Duration duration) throws InterruptedException;

  /**
   * A future that completes as {@code future} does, or fails with a {@link TimeoutException} once
   * {@code limit} has passed on this source: {@link CompletableFuture#orTimeout} on this source's
   * time, leaving {@code future} itself alone (cancel it if its work should stop). A failure of
   * {@code future} arrives unwrapped from {@link CompletionException}.
   */
  default <T> CompletableFuture<T> orTimeout(CompletableFuture<T> future, Duration limit) {
    CompletableFuture<T> bounded = new CompletableFuture<>();
    Timer timer = schedule(limit, () -> bounded.completeExceptionally(new TimeoutException("not completed within " + limit.toMillis() + " ms")));
    future.whenComplete(
        (value, failure) -> {
          timer.cancel();
          if (failure == null) {
            bounded.complete(value);
          } else {
            bounded.completeExceptionally(failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure);
          }
        });
    return bounded;
  }

  /**
   * Real time: {@link Instant#now()}, {@link System#nanoTime()}, one daemon timer thread for the whole JVM (started on first
   * use) and {@link Thread#sleep}. Scheduling and cancelling cost a concurrent-set insert and remove;
   * the thread is woken only when a new task is due before its next wake-up.
   */
  static TimeSource system() {
    return new TimeSource() {
      @Override
      public Instant instant() {
        return Instant.now();
      }

      @Override
      public long nanoTime() {
        return System.nanoTime();
      }

      @Override
      public Timer schedule(Duration delay, Runnable task) {
        return TimerThread.INSTANCE.schedule(delay, task)::cancel;
      }

      @Override
      public void sleep(Duration duration) throws InterruptedException {
        TimeUnit.NANOSECONDS.sleep(duration.toNanos());
      }
    };
  }

  /** One scheduled task. */
  interface Timer {
    /**
     * Cancels the task.
     *
     * @return true if the task will not run because of this call; false if it ran, is running or
     *     was cancelled before
     */
    boolean cancel();
  }
}
