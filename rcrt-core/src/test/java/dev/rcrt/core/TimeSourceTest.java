package dev.rcrt.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The system time source's timer thread, on real time with short delays. */
class TimeSourceTest {
  private final TimeSource time = TimeSource.system();

  @Test
  void aScheduledTaskRunsOnceAfterItsDelayAndACancelledOneNever() throws Exception {
    CountDownLatch ran = new CountDownLatch(1);
    AtomicInteger cancelledRuns = new AtomicInteger();
    long start = time.nanoTime();
    TimeSource.Timer cancelled = time.schedule(Duration.ofMillis(200), cancelledRuns::incrementAndGet);
    assertThat(cancelled.cancel()).isTrue();
    time.schedule(Duration.ofMillis(400), ran::countDown); // after the cancelled one would have run
    assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(time.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(400));
    assertThat(cancelledRuns).hasValue(0);
    assertThat(cancelled.cancel()).as("cancelling twice").isFalse();
  }

  @Test
  void anEarlierTaskScheduledWhileTheThreadWaitsForALaterOneStillRunsFirst() throws Exception {
    CountDownLatch early = new CountDownLatch(1);
    CountDownLatch late = new CountDownLatch(1);
    TimeSource.Timer far = time.schedule(Duration.ofSeconds(30), late::countDown);
    time.schedule(Duration.ofMillis(10), early::countDown);
    assertThat(early.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(late.getCount()).isEqualTo(1);
    assertThat(far.cancel()).isTrue();
  }

  @Test
  void aTaskThatThrowsDoesNotStopTheTimer() throws Exception {
    time.schedule(Duration.ZERO, () -> {
      throw new IllegalStateException("boom");
    });
    CountDownLatch after = new CountDownLatch(1);
    time.schedule(Duration.ofMillis(5), after::countDown);
    assertThat(after.await(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void orTimeoutFailsAtTheLimitAndOtherwiseCompletesAsTheFutureDoes() throws Exception {
    CompletableFuture<String> never = new CompletableFuture<>();
    assertThatThrownBy(() -> time.orTimeout(never, Duration.ofMillis(10)).get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(TimeoutException.class)
        .cause().hasMessage("not completed within 10 ms");
    assertThat(never).as("the future itself is left alone").isNotDone();

    assertThat(time.orTimeout(CompletableFuture.completedFuture("yes"), Duration.ofSeconds(30)).get()).isEqualTo("yes");
    CompletableFuture<String> failing = CompletableFuture.supplyAsync(() -> {
      throw new IllegalArgumentException("bad");
    });
    assertThatThrownBy(() -> time.orTimeout(failing, Duration.ofSeconds(30)).get(10, TimeUnit.SECONDS))
        .hasCauseInstanceOf(IllegalArgumentException.class);
  }
}
