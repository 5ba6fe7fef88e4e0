package dev.rcrt.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class MonitorWaitsTest {
  private final Object monitor = new Object();
  private int value;

  @Test
  void aWaitEndsWhenAnotherThreadMakesTheConditionTrueAndNotifies() throws Exception {
    CompletableFuture<Boolean> waited = new CompletableFuture<>();
    Thread waiter = new Thread(() -> {
      try {
        waited.complete(MonitorWaits.until(monitor, () -> value == 2, Duration.ofSeconds(60)));
      } catch (InterruptedException e) {
        waited.completeExceptionally(e);
      }
    });
    waiter.start();
    for (int v = 1; v <= 2; v++) {
      synchronized (monitor) {
        value = v;
        monitor.notifyAll();
      }
    }
    assertThat(waited.get(60, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void aWaitForWhatNeverHappensSaysSoOnceItsTimeHasPassed() throws Exception {
    long start = System.nanoTime();
    assertThat(MonitorWaits.until(monitor, () -> value == 1, Duration.ofMillis(200))).isFalse();
    assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(200));
  }
}
