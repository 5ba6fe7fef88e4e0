package dev.rcrt.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.TimeSource;
import dev.rcrt.core.spi.OwnedTimers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class OwnedTimersTest {
  private final TestClock clock = new TestClock();
  private final OwnedTimers timers = new OwnedTimers(clock);
  private final List<String> ran = new ArrayList<>();

  @Test
  void aTimerIsKeptOnlyUntilItRunsOrIsCancelledEvenOneThatRanBeforeItWasSet() {
    for (int i = 0; i < 1_000; i++) { // an owner that looks again at once, for ever, keeps nothing
      timers.after(Duration.ZERO, () -> ran.add("now"));
      timers.at(clock.instant().minusSeconds(1), () -> ran.add("past"));
    }
    assertThat(ran).hasSize(2_000);
    assertThat(timers.pending()).isZero();

    timers.after(Duration.ofSeconds(5), () -> ran.add("in 5 s"));
    TimeSource.Timer cancelled = timers.at(clock.instant().plusSeconds(5), () -> ran.add("cancelled"));
    assertThat(timers.pending()).isEqualTo(2);
    assertThat(cancelled.cancel()).isTrue();
    assertThat(timers.pending()).isEqualTo(1);
    clock.advance(Duration.ofSeconds(5));
    assertThat(ran).hasSize(2_001).endsWith("in 5 s");
    assertThat(timers.pending()).isZero();
  }

  @Test
  void cancellingAllStopsWhatIsPendingAndWhatIsSetAfterwards() {
    timers.after(Duration.ofSeconds(1), () -> ran.add("pending"));
    timers.cancelAll();
    timers.after(Duration.ZERO, () -> ran.add("after the close"));
    timers.at(clock.instant().plusSeconds(1), () -> ran.add("after the close, dated"));
    clock.advance(Duration.ofSeconds(2));
    assertThat(ran).isEmpty();
    assertThat(timers.pending()).isZero();
    assertThat(clock.pendingTimers()).isZero();
  }
}
