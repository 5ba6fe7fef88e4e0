package dev.rcrt.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class LeaseOptionTest {
  private static final List<String> G1 = List.of("G1 Young Generation", "G1 Old Generation");

  @Test
  void aShortLeaseOnACollectorThatStopsTheWorldIsTakenWithAWarningThatSaysWhatToDo() {
    assertThat(LeaseOption.pauseWarning(Duration.ofMillis(100), G1)).hasValueSatisfying(w -> assertThat(w)
        .contains("--lease 100 ms").contains("G1 Young Generation").contains("-XX:+UseZGC").contains("at least 300 ms"));
    assertThat(LeaseOption.pauseWarning(Duration.ofMillis(299), List.of("Copy", "MarkSweepCompact"))).isPresent();
    assertThat(LeaseOption.pauseWarning(Duration.ofMillis(299), List.of("PS Scavenge", "PS MarkSweep"))).isPresent();
  }

  @Test
  void aLeaseThatOutlastsThePausesOrALowPauseCollectorGetsNone() {
    assertThat(LeaseOption.pauseWarning(Duration.ofMillis(300), G1)).isEmpty();
    assertThat(LeaseOption.pauseWarning(Duration.ofMillis(100), List.of("ZGC Cycles", "ZGC Pauses"))).isEmpty(); // JDK 17
    assertThat(LeaseOption.pauseWarning(Duration.ofMillis(100), List.of("ZGC Minor Cycles", "ZGC Minor Pauses", "ZGC Major Cycles",
        "ZGC Major Pauses"))).isEmpty(); // generational
    assertThat(LeaseOption.pauseWarning(Duration.ofMillis(100), List.of("Shenandoah Pauses", "Shenandoah Cycles"))).isEmpty();
    assertThat(LeaseOption.pauseWarning(Duration.ofMillis(100), List.of())).isEmpty(); // Epsilon collects nothing
  }
}
