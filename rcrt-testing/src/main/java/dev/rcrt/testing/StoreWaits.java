package dev.rcrt.testing;

import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Waiting in a test for what a store's writers do (an answer, a run's status, an import), on the
 * store's own events, never by sleeping: the condition is asked again after each write the store
 * reports, from any thread or, for a shared store, any process.
 */
public final class StoreWaits {
  private StoreWaits() {}

  /**
   * Waits until {@code done} holds, asking it first and then again after each write to {@code
   * store} (its events, subscribed to before the first look, so a write in between is not missed),
   * for at most {@code within} of real time.
   *
   * @param done asked on the calling thread; it reads the store (or anything the writes change)
   * @return whether {@code done} holds: false once {@code within} passed without it
   * @throws InterruptedException if the thread is interrupted while waiting
   */
  public static boolean until(BreadcrumbStore store, BooleanSupplier done, Duration within) throws InterruptedException {
    Semaphore written = new Semaphore(0);
    long deadline = System.nanoTime() + within.toNanos();
    try (Subscription events = store.subscribe(Selector.all(), e -> written.release())) {
      while (!done.getAsBoolean()) {
        long left = deadline - System.nanoTime();
        if (left <= 0 || !written.tryAcquire(left, TimeUnit.NANOSECONDS)) {
          return done.getAsBoolean();
        }
        written.drainPermits();
      }
      return true;
    }
  }
}
