package dev.rcrt.postgres.internal;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * What an {@link EventPump} knows about the horizon it reads below ({@link Tables#horizon(boolean)}):
 * whether its next read needs the precise horizon, and which writer of the store has held delivery
 * back since when.
 *
 * <p>Reads use the server's oldest transaction ({@code xmin}) while it keeps moving, as it does when
 * transactions are short; once the same {@code xmin} has stayed in progress for {@link
 * #PRECISE_AFTER}, reads ask for the precise horizon (this store's writers only) until it moves. A
 * transaction left open elsewhere on the server therefore delays events written in its first {@link
 * #PRECISE_AFTER} at most, and costs a {@code pg_locks} read per wake-up while it stays open.
 *
 * <p>{@link #observe}, {@link #heldBy()} and {@link #nameOnce} are called holding the pump's reading
 * lock; {@link #precise()} and {@link #lag()} from any thread.
 */
final class DeliveryHorizon {
  /** How long one {@code xmin} stays in progress before reads ask for the precise horizon. */
  static final Duration PRECISE_AFTER = Duration.ofMillis(100);
  private static final long NOT_HELD = Long.MIN_VALUE;

  private long xmin = -1;
  private long xminSince;
  private volatile boolean precise;
  private long heldBy = -1;
  private boolean named;
  /** {@link System#nanoTime()} since when {@code heldBy} holds delivery back, or {@link #NOT_HELD}. */
  private volatile long heldSince = NOT_HELD;

  /** Whether the next read asks for the precise horizon. */
  boolean precise() {
    return precise;
  }

  /**
   * Takes in the horizon row of a read.
   *
   * @param tx the horizon read below
   * @param held for a precise read, whether a writer of the store in progress holds {@code tx}; null otherwise
   * @param xmin the server's oldest transaction in progress, {@code xmax} when none
   * @param xmax the next transaction id of the read's snapshot
   * @param now {@link System#nanoTime()}
   * @return whether the next read is precise and this one was not: read again at once
   */
  boolean observe(long tx, @Nullable Boolean held, long xmin, long xmax, long now) {
    if (xmin != this.xmin) {
      this.xmin = xmin;
      xminSince = now;
    }
    if (held == null || !held) {
      heldBy = -1;
      heldSince = NOT_HELD;
    } else if (tx != heldBy) {
      heldBy = tx;
      named = false;
      heldSince = tx == xmin ? xminSince : now;
    }
    boolean was = precise;
    precise = xmin < xmax && now - xminSince >= PRECISE_AFTER.toNanos();
    return precise && !was;
  }

  /** The writer in progress that held delivery back at the last read, or -1. */
  long heldBy() {
    return heldBy;
  }

  /**
   * Whether {@link #heldBy()} has held delivery back for at least {@code warning} and was not named
   * yet; if so it counts as named from now on.
   */
  boolean nameOnce(Duration warning) {
    if (heldBy < 0 || named || lag().compareTo(warning) < 0) {
      return false;
    }
    named = true;
    return true;
  }

  /** How long the writer of the last read has held delivery back; zero when none did. Thread-safe. */
  Duration lag() {
    long since = heldSince;
    return since == NOT_HELD ? Duration.ZERO : Duration.ofNanos(Math.max(0, System.nanoTime() - since));
  }
}
