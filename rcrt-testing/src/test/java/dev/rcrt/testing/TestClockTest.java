package dev.rcrt.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

class TestClockTest {
  private final TestClock clock = new TestClock(Instant.parse("2026-11-22T10:00:00Z"));

  @Test
  void advancingMovesWallAndMonotonicTimeAndRunsDueTimersInDeadlineOrder() {
    List<String> ran = new ArrayList<>();
    clock.schedule(Duration.ofSeconds(3), () -> ran.add("3s"));
    clock.schedule(Duration.ofSeconds(1), () -> ran.add("1s"));
    clock.schedule(Duration.ofSeconds(1), () -> ran.add("1s, second"));
    TestClock.Timer cancelled = clock.schedule(Duration.ofSeconds(2), () -> ran.add("cancelled"));
    assertThat(cancelled.cancel()).isTrue();

    clock.advance(Duration.ofMillis(999));
    assertThat(ran).isEmpty();
    clock.advance(Duration.ofSeconds(5));
    assertThat(ran).containsExactly("1s", "1s, second", "3s");
    assertThat(clock.instant()).isEqualTo(Instant.parse("2026-11-22T10:00:05.999Z"));
    assertThat(clock.nanoTime()).isEqualTo(Duration.ofMillis(5999).toNanos());
    assertThat(clock.pendingTimers()).isZero();
    assertThat(cancelled.cancel()).isFalse();
  }

  @Test
  void aTimerDueNowRunsAtOnceAndSleepingAdvancesInsteadOfWaiting() throws Exception {
    List<String> ran = new ArrayList<>();
    clock.schedule(Duration.ZERO, () -> ran.add("now"));
    assertThat(ran).containsExactly("now");
    clock.schedule(Duration.ofMinutes(10), () -> ran.add("after the nap"));
    clock.sleep(Duration.ofMinutes(10));
    assertThat(ran).containsExactly("now", "after the nap");
  }

  @Test
  void orTimeoutFiresWhenTheClockPassesTheLimit() {
    CompletableFuture<String> bounded = clock.orTimeout(new CompletableFuture<>(), Duration.ofSeconds(30));
    clock.advance(Duration.ofSeconds(29));
    assertThat(bounded).isNotDone();
    clock.advance(Duration.ofSeconds(1));
    assertThat(bounded).isCompletedExceptionally();
    assertThatThrownBy(bounded::join).hasCauseInstanceOf(TimeoutException.class);
  }

  @Test
  void aTestWaitsForTheTimersAnotherThreadSchedulesWithoutPolling() throws Exception {
    java.util.concurrent.CountDownLatch waiting = new java.util.concurrent.CountDownLatch(1);
    Thread scheduler = new Thread(() -> {
      try {
        waiting.await();
      } catch (InterruptedException e) {
        return;
      }
      clock.schedule(Duration.ofSeconds(1), () -> {});
      clock.schedule(Duration.ofSeconds(2), () -> {});
    });
    scheduler.start();
    waiting.countDown();
    assertThat(clock.awaitPendingTimers(2, Duration.ofSeconds(60))).isTrue();
    assertThat(clock.awaitPendingTimers(3, Duration.ofMillis(1))).as("a third timer nobody schedules").isFalse();
    scheduler.join();
  }

  @Test
  void aTimerSetForADateRunsWhenTheClockReachesItHoweverFarTheClockMovedSinceTheDateWasWorkedOut() {
    List<String> ran = new ArrayList<>();
    Instant read = clock.instant();
    Instant deadline = read.plus(Duration.ofMinutes(2));
    clock.advance(Duration.ofMinutes(2).plusSeconds(1)); // another thread moves the clock after the caller read it
    clock.scheduleAt(deadline, () -> ran.add("deadline"));
    assertThat(ran).as("a date already passed").containsExactly("deadline");

    clock.scheduleAt(clock.instant().plusSeconds(10), () -> ran.add("in 10 s"));
    clock.advance(Duration.ofSeconds(9));
    assertThat(ran).containsExactly("deadline");
    clock.advance(Duration.ofSeconds(1));
    assertThat(ran).containsExactly("deadline", "in 10 s");
    // what a delay worked out from the earlier reading would have done: run two minutes too late
    clock.schedule(Duration.between(read, deadline), () -> ran.add("late"));
    assertThat(clock.pendingTimers()).isEqualTo(1);
  }

  @Test
  void aTimerSetForAPointOfMonotonicTimeRunsWhenTheClockReachesIt() {
    List<String> ran = new ArrayList<>();
    long read = clock.nanoTime();
    clock.advance(Duration.ofSeconds(5)); // another thread moves the clock after the caller read it
    clock.scheduleAtNanoTime(read + Duration.ofSeconds(3).toNanos(), () -> ran.add("passed"));
    assertThat(ran).as("a point already passed").containsExactly("passed");

    clock.scheduleAtNanoTime(clock.nanoTime() + Duration.ofSeconds(10).toNanos(), () -> ran.add("in 10 s"));
    clock.advance(Duration.ofSeconds(9));
    assertThat(ran).containsExactly("passed");
    clock.advance(Duration.ofSeconds(1));
    assertThat(ran).containsExactly("passed", "in 10 s");
  }

  @Test
  void timeNeverGoesBack() {
    assertThatThrownBy(() -> clock.advance(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a TestClock moves forward only, not by PT-1S");
  }
}
