package dev.rcrt.postgres.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** When the event reader asks for the precise horizon, and whom it blames for waiting (times are given, not slept). */
class DeliveryHorizonTest {
  private static final long MS = 1_000_000;

  @Test
  void readsStayCheapWhileTheServersOldestTransactionMovesAndTurnPreciseOnceItStays() {
    DeliveryHorizon h = new DeliveryHorizon();
    assertThat(h.observe(100, null, 100, 105, 0)).isFalse();
    assertThat(h.observe(103, null, 103, 110, 50 * MS)).as("xmin moved").isFalse();
    assertThat(h.precise()).isFalse();
    assertThat(h.observe(103, null, 103, 120, 149 * MS)).isFalse();
    assertThat(h.observe(103, null, 103, 125, 153 * MS)).as("xmin 103 in progress for 103 ms: read again, precisely").isTrue();
    assertThat(h.precise()).isTrue();
    assertThat(h.observe(125, false, 103, 125, 154 * MS)).as("already precise").isFalse();
    assertThat(h.lag()).as("103 is not a writer of this store").isZero();
    assertThat(h.observe(130, null, 130, 131, 160 * MS)).isFalse();
    assertThat(h.precise()).as("xmin moved on").isFalse();
  }

  @Test
  void nothingInProgressIsNeverAReasonForPreciseReads() {
    DeliveryHorizon h = new DeliveryHorizon();
    h.observe(7, null, 7, 7, 0);
    assertThat(h.observe(7, null, 7, 7, 10_000 * MS)).isFalse();
    assertThat(h.precise()).isFalse();
  }

  @Test
  void aWriterHoldingTheHorizonIsBlamedFromWhenItBecameTheOldestAndNamedOnce() {
    DeliveryHorizon h = new DeliveryHorizon();
    long start = System.nanoTime() - 5_000 * MS; // the writer has been the oldest for 5 s
    h.observe(40, null, 40, 50, start);
    assertThat(h.observe(40, null, 40, 50, start + 200 * MS)).isTrue();
    h.observe(40, true, 40, 50, start + 201 * MS);
    assertThat(h.heldBy()).isEqualTo(40);
    assertThat(h.lag()).isGreaterThanOrEqualTo(Duration.ofSeconds(5));
    assertThat(h.nameOnce(Duration.ofSeconds(10))).as("not yet 10 s").isFalse();
    assertThat(h.nameOnce(Duration.ofSeconds(1))).isTrue();
    assertThat(h.nameOnce(Duration.ofSeconds(1))).as("once").isFalse();
    h.observe(50, false, 50, 50, start + 300 * MS);
    assertThat(h.heldBy()).isEqualTo(-1);
    assertThat(h.lag()).isZero();
  }
}
