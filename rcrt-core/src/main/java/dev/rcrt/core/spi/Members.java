package dev.rcrt.core.spi;

import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.TimeSource;
import dev.rcrt.core.WorkClaims;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The workers of one fleet group (the runners of one agent, the listening tool runners of a store)
 * across every process on a store, and which of them each piece of work is offered to first, so
 * that a fleet of any size spends one claim on each piece of work instead of one per worker.
 *
 * <p>A member holds a claim on {@value WorkClaims#MEMBER_PREFIX}{@code <group>:<owner>} while it
 * lives (renewed by its {@link Leases}, given back by {@link #close()}, run out when its process
 * dies), and reads who else holds one ({@link WorkClaims#holders}) at most once a third of the
 * lease. {@link #first(String)} picks one live member per key by rendezvous hashing (the member
 * whose hash of the key and its name is highest): every member that sees the same members picks
 * the same one, and a member joining or leaving moves only its own share of the keys. The others
 * look at that work only if it is still open a lease later (the first member died, stalled or
 * was too busy); by then its answer has usually dropped their look.
 *
 * <p>Membership only orders who tries first: the claims still decide who acts, so two members
 * whose views differ for a moment both try (as every worker did without membership), and a view
 * that names a dead member costs its work one lease of delay, as a dead holder's claim does. A
 * member that knows no other members, or could not read them, is first for every key.
 *
 * <p>{@link #first(String)} may read the claims (one statement on PostgreSQL): call it where store
 * I/O is allowed, never on the time source's timer thread. Thread-safe; the owner of a
 * {@code Members} closes it before closing its {@link Leases}.
 */
public final class Members implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Members.class);

  private final BreadcrumbStore store;
  private final WorkClaims claims;
  private final Leases leases;
  private final String prefix;
  private final String owner;
  private final Duration lease;
  private final TimeSource time;
  /** The member claim, while held; guarded by this. */
  private Leases.@Nullable Held held;
  /** The members last read and when ({@link TimeSource#nanoTime()}); replaced whole. */
  private volatile @Nullable View view;
  private boolean closed; // guarded by this

  private record View(List<String> owners, long readAt) {}

  /**
   * @param store the store whose claims ({@code claims}) the members share
   * @param claims the store's claims ({@link Leases#claimsOf})
   * @param leases renews the member claim while this member lives; owned by the caller, who closes it after this
   * @param group which work the members share, such as {@code run:<agent id>}; the same for every member
   * @param owner this member's name: the owner its claims on work are taken under, unique to it
   * @param lease how long its member claim lasts unrenewed, and a third of it how stale its view of the others may get
   * @param time when the view is stale ({@link TimeSource#nanoTime()}), and the renewals' timers
   * @throws NullPointerException if any argument is null
   */
  public Members(BreadcrumbStore store, WorkClaims claims, Leases leases, String group, String owner, Duration lease, TimeSource time) {
    this.store = Objects.requireNonNull(store, "store");
    this.claims = Objects.requireNonNull(claims, "claims");
    this.leases = Objects.requireNonNull(leases, "leases");
    this.prefix = WorkClaims.MEMBER_PREFIX + Objects.requireNonNull(group, "group") + ":";
    this.owner = Objects.requireNonNull(owner, "owner");
    this.lease = Objects.requireNonNull(lease, "lease");
    this.time = Objects.requireNonNull(time, "time");
  }

  /**
   * Whether this member is the one {@code key} is offered to first among the members it knows:
   * true when it knows no other member, or when the claims could not be read (everyone tries, as
   * without membership). Joins the group on first use, and reads the members again when its view
   * is older than a third of the lease (on the calling thread, or waiting for the read another
   * thread has under way: one statement; a failure is logged and every key is this member's for
   * another third).
   */
  public boolean first(String key) {
    View v = current();
    if (v.owners.size() < 2 || !v.owners.contains(owner)) {
      return true;
    }
    String best = owner;
    long bestScore = score(key, owner);
    for (String other : v.owners) {
      long s = score(key, other);
      if (s > bestScore || s == bestScore && other.compareTo(best) < 0) {
        best = other;
        bestScore = s;
      }
    }
    return best.equals(owner);
  }

  /**
   * Joins the group now (and reads its members), so that the others offer work here from their
   * next read on; {@link #first} joins on first use otherwise. Store I/O on the calling thread; a
   * failure is logged and tried again at a later {@link #first}.
   */
  public void join() {
    view = null;
    current();
  }

  /**
   * The members read at most a third of a lease ago; read now on this thread when older. A thread
   * that finds the view stale while another reads it waits for that read (one statement) rather
   * than go on with the stale view: a view from before the others joined (a member's first, taken
   * as it joined) makes a member first for every key, and each of its threads that used it spent a
   * second claim on the work it was offered (seen under load in {@code FleetTest}).
   */
  private View current() {
    View v = view;
    if (v != null && fresh(v)) {
      return v;
    }
    synchronized (this) {
      v = view;
      if (v != null && fresh(v)) {
        return v; // read by another thread while this one waited
      }
      List<String> owners;
      try {
        hold();
        owners = claims.holders(prefix).stream().map(WorkClaims.Claim::owner).distinct().toList();
      } catch (RuntimeException e) {
        LOG.warn("could not read the members of '{}' ({}); this worker tries all work until it can", prefix, e.getMessage());
        owners = List.of();
      }
      View read = new View(owners, time.nanoTime());
      view = read;
      return read;
    }
  }

  private boolean fresh(View v) {
    return time.nanoTime() - v.readAt < lease.toNanos() / 3;
  }

  /** Holds this member's claim, taking it (again) when it is not held; called under this object's monitor. */
  private void hold() {
    if (closed || held != null && !held.lost()) {
      return;
    }
    Leases.Attempt taken = leases.attempt(store, claims, prefix + owner, owner, lease);
    held = taken.held();
    if (held == null) {
      LOG.warn("could not join '{}' as '{}': {}", prefix, owner, taken.found());
    }
  }

  /** A 64-bit mix of {@code key} and {@code member} (SplitMix64's finaliser over both strings' hashes). */
  private static long score(String key, String member) {
    long z = key.hashCode() * 0x9E3779B97F4A7C15L + member.hashCode();
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** Gives the member claim back (the others stop offering work here once they read the members again). Idempotent. */
  @Override
  public synchronized void close() {
    closed = true;
    Leases.Held h = held;
    held = null;
    if (h != null) {
      try {
        h.release();
      } catch (RuntimeException e) {
        LOG.debug("could not give back the member claim of '{}'; it runs out: {}", owner, e.toString());
      }
    }
  }
}
