package dev.rcrt.core.spi;

import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.TimeSource;
import dev.rcrt.core.WorkClaims;
import dev.rcrt.core.WorkClaims.Claim;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.WeakHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Work taken under a {@link WorkClaims} lease and kept while it runs: {@link #take} claims a key
 * and renews the claim every third of the lease on a {@link TimeSource} timer until the holder
 * {@linkplain Held#complete completes} or {@linkplain Held#release releases} it. A holder that
 * dies stops renewing, and another worker takes the key over once the lease has run out. Used by
 * listening tool runners (one per {@code tool.request.v1}) and agent runs (one per turn).
 */
public final class Leases {
  private static final Logger LOG = LoggerFactory.getLogger(Leases.class);
  private static final Map<BreadcrumbStore, WorkClaims> LOCAL = new WeakHashMap<>();

  private Leases() {}

  /**
   * The store's claims, or, for a store that has none, claims shared by every worker of this JVM
   * on that store, judged on the first such worker's time when it is a {@link Clock} (a test
   * clock), else on the system clock.
   */
  public static WorkClaims claimsOf(BreadcrumbStore store, TimeSource time) {
    Optional<WorkClaims> own = store.claims();
    if (own.isPresent()) {
      return own.get();
    }
    synchronized (LOCAL) {
      return LOCAL.computeIfAbsent(store, s -> WorkClaims.inMemory(time instanceof Clock clock ? clock : Clock.systemUTC()));
    }
  }

  /**
   * Claims {@code key} for {@code owner} and keeps renewing it.
   *
   * @return the held claim, or empty when another worker holds the key or it is completed
   * @throws RuntimeException what the claims throw (the store is unreachable)
   */
  public static Optional<Held> take(WorkClaims claims, String key, String owner, Duration lease, TimeSource time) {
    return claims.tryClaim(key, owner, lease).map(c -> new Held(claims, c, lease, time));
  }

  /** A claim being renewed. Thread-safe. */
  public static final class Held {
    private final WorkClaims claims;
    private final Duration lease;
    private final TimeSource time;
    private Claim claim;
    private boolean stopped;
    private boolean lost;
    private TimeSource.Timer next;

    private Held(WorkClaims claims, Claim claim, Duration lease, TimeSource time) {
      this.claims = claims;
      this.claim = claim;
      this.lease = lease;
      this.time = time;
      synchronized (this) {
        this.next = time.schedule(lease.dividedBy(3), this::renew);
      }
    }

    private synchronized void renew() {
      if (stopped) {
        return;
      }
      try {
        Optional<Claim> renewed = claims.renew(claim, lease);
        if (renewed.isEmpty()) {
          lost = true;
          LOG.warn("lost the claim on '{}' while holding it: another worker may have taken it over", claim.key());
          return;
        }
        claim = renewed.get();
      } catch (RuntimeException e) {
        LOG.warn("could not renew the claim on '{}': {}", claim.key(), e.getMessage());
      }
      next = time.schedule(lease.dividedBy(3), this::renew);
    }

    /** The claim as last renewed. */
    public synchronized Claim claim() {
      return claim;
    }

    /** Whether a renewal found the claim taken over or completed by someone else. */
    public synchronized boolean lost() {
      return lost;
    }

    /** Stops renewing and marks the work done: nobody can claim the key again. */
    public void complete() {
      claims.complete(stop());
    }

    /** Stops renewing and gives the key back, so another worker may take it now. */
    public void release() {
      claims.release(stop());
    }

    /** Stops renewing and leaves the claim to run out (for a holder that can no longer reach the claims). */
    public synchronized Claim stop() {
      stopped = true;
      next.cancel();
      return claim;
    }
  }
}
