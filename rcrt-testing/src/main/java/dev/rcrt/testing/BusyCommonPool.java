package dev.rcrt.testing;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;

/**
 * Every worker of the common fork-join pool kept busy until {@link #close()}, as a host's blocking
 * work keeps it (parallel streams, {@code supplyAsync} without an executor): for a test that the
 * code under test never waits on that pool. The JDK sends it more work than one might think: the
 * default executor of {@code CompletableFuture}, and so the completion of {@code
 * HttpClient.sendAsync}, is that pool on JDK 25, and on JDK 17 with three or more cores.
 *
 * <p>Close it in a {@code finally} (or try-with-resources): its tasks hold the pool's workers until
 * then, for every test of the JVM.
 */
public final class BusyCommonPool implements AutoCloseable {
  private final CountDownLatch release = new CountDownLatch(1);

  private BusyCommonPool() {}

  /**
   * Submits one blocking task per worker of the common pool ({@link ForkJoinPool#getParallelism()})
   * and returns once every one of them runs.
   *
   * @param within how long to wait for them all to run, in real time
   * @throws AssertionError if they did not all run within {@code within} (the pool was busy with
   *     other work; the tasks are released)
   * @throws InterruptedException if the calling thread is interrupted while waiting
   */
  public static BusyCommonPool block(Duration within) throws InterruptedException {
    BusyCommonPool busy = new BusyCommonPool();
    int workers = ForkJoinPool.commonPool().getParallelism();
    CountDownLatch running = new CountDownLatch(workers);
    for (int i = 0; i < workers; i++) {
      ForkJoinPool.commonPool().execute(() -> {
        running.countDown();
        try {
          busy.release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
    }
    if (!running.await(within.toNanos(), TimeUnit.NANOSECONDS)) {
      busy.close();
      throw new AssertionError("the common pool's " + workers + " workers did not all take a blocking task within " + within);
    }
    return busy;
  }

  /** Lets the pool's workers go. */
  @Override
  public void close() {
    release.countDown();
  }
}
