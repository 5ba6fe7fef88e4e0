package dev.rcrt.testing;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Waiting in a test for a condition that other threads make true and say so on a monitor (they
 * change what the condition reads, then call {@link Object#notifyAll()} on the monitor while
 * holding it), never by sleeping between looks: the condition is asked again each time the monitor
 * is notified.
 */
public final class MonitorWaits {
  private MonitorWaits() {}

  /**
   * Waits until {@code done} holds, asking it first and then again after each notification of
   * {@code monitor}, for at most {@code within} of real time.
   *
   * @param monitor the object whose lock guards what {@code done} reads; held while {@code done}
   *     is asked, released while waiting
   * @param done asked on the calling thread holding {@code monitor}'s lock: it must not wait
   * @return whether {@code done} holds: false once {@code within} passed without it
   * @throws InterruptedException if the thread is interrupted while waiting
   */
  public static boolean until(Object monitor, BooleanSupplier done, Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    synchronized (monitor) {
      while (!done.getAsBoolean()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(monitor, left);
      }
      return true;
    }
  }
}
