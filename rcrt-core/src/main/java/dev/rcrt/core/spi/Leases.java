package dev.rcrt.core.spi;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.ClaimLostException;
import dev.rcrt.core.TimeSource;
import dev.rcrt.core.WorkClaims;
import dev.rcrt.core.WorkClaims.Claim;
import dev.rcrt.core.internal.MemoryClaims;
import java.time.Duration;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claims one worker holds under {@link WorkClaims} leases, and the one thread that renews them.
 * {@link #attempt} claims a key; the claim is then renewed every third of its lease (counted from each
 * renewal's send, so a slow store does not stretch the gap) until the holder
 * {@linkplain Held#complete completes}, {@linkplain Held#release releases} or {@linkplain Held#stop
 * stops} it. The {@link TimeSource}'s timer only hands a due renewal to this object's own thread,
 * which does the store I/O: a slow store delays no other timer, and a renewal never waits behind
 * another worker's I/O. The renewals that are due together go in one call ({@link
 * WorkClaims#renewAll}: one statement on PostgreSQL), so a worker holding a hundred runs renews
 * them as fast as one. A holder that dies stops renewing, and another worker takes the key over
 * once the lease has run out.
 *
 * <p>A holder acts only while it holds: {@link Held#valid()} is false once a renewal found the
 * claim lost or once a lease's worth of time has passed since the last renewal was sent (a stalled
 * process cannot know whether it still holds), {@link Held#check()} then asks the claims, {@link
 * Held#verify()} always does, and {@link Held#create} writes a record fenced by the claim's token.
 * A holder whose lease ran out with nobody taking over keeps its work: the token, not the clock,
 * fences. Renewals are counted and their lateness
 * measured ({@link #stats()}); renewals later than a third of the lease are logged.
 *
 * <p>Used by agent runs (one claim per run step) and listening tool runners (one per {@code
 * tool.request.v1}). Thread-safe. {@link #close()} stops every renewal and the thread; claims still
 * held then run out.
 */
public final class Leases implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Leases.class);
  private static final Map<BreadcrumbStore, WorkClaims> LOCAL = new WeakHashMap<>();

  private final TimeSource time;
  private final ExecutorService renewer;
  private final Set<Held> holding = ConcurrentHashMap.newKeySet();
  private final AtomicLong renewals = new AtomicLong();
  private final AtomicLong lost = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final AtomicLong maxLateNanos = new AtomicLong();
  /** Holders whose renewal came due, waiting for the renewal thread; {@link #draining} says a drain is queued. */
  private final ConcurrentLinkedQueue<Held> dueNow = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean draining = new AtomicBoolean();
  private volatile boolean closed;

  /**
   * @param name names the renewal thread ({@code <name>-leases}), a daemon
   * @param time when renewals are due, and how long a lease lasts
   */
  public Leases(String name, TimeSource time) {
    this.time = time;
    this.renewer = Executors.newSingleThreadExecutor(DaemonThreads.factory(name + "-leases"));
  }

  /**
   * The store's claims, or, for a store that has none, claims shared by every worker of this JVM
   * on that store, judged on the first such worker's {@link TimeSource#instant()}.
   */
  public static WorkClaims claimsOf(BreadcrumbStore store, TimeSource time) {
    Optional<WorkClaims> own = store.claims();
    if (own.isPresent()) {
      return own.get();
    }
    synchronized (LOCAL) {
      return LOCAL.computeIfAbsent(store, s -> new MemoryClaims(time::instant));
    }
  }

  /**
   * What renewals did so far.
   *
   * @param renewals renewals sent
   * @param lost renewals that found the claim taken over, completed or run out
   * @param failed renewals the claims could not answer (the store failed)
   * @param maxLateness the most a renewal started after it was due (a busy or stalled process)
   * @param held claims held now
   */
  public record Stats(long renewals, long lost, long failed, Duration maxLateness, int held) {}

  /** What renewals did so far; see {@link Stats}. */
  public Stats stats() {
    return new Stats(renewals.get(), lost.get(), failed.get(), Duration.ofNanos(maxLateNanos.get()), holding.size());
  }

  /**
   * What {@link #attempt} found.
   *
   * @param held the claim, renewed from now on, or null when it was not taken
   * @param found the claims' answer: when it was not taken, until when another worker holds the
   *     key, or that it is completed ({@link WorkClaims#attempt})
   */
  public record Attempt(@Nullable Held held, WorkClaims.Attempt found) {}

  /**
   * Claims {@code key} for {@code owner} and, when taken, keeps renewing it; when not, says why in
   * the same round trip to the claims ({@link WorkClaims#attempt}).
   *
   * @param store the store fenced writes go to ({@link Held#create}); its claims are {@code claims}
   *     or, for a store without claims, this JVM's ({@link #claimsOf})
   * @return the held claim, or why it was not taken; never null
   * @throws IllegalStateException after {@link #close()}
   * @throws RuntimeException what the claims throw (the store is unreachable)
   */
  public Attempt attempt(BreadcrumbStore store, WorkClaims claims, String key, String owner, Duration lease) {
    if (closed) {
      throw new IllegalStateException("these leases are closed");
    }
    long sent = time.nanoTime();
    WorkClaims.Attempt found = claims.attempt(key, owner, lease);
    Claim claim = found.claim();
    if (claim == null) {
      return new Attempt(null, found);
    }
    Held held = new Held(store, claims, claim, lease, sent);
    holding.add(held);
    held.schedule(sent);
    return new Attempt(held, found);
  }

  /** Stops every renewal (claims still held run out) and the renewal thread. Idempotent. */
  @Override
  public void close() {
    closed = true;
    holding.forEach(Held::stop);
    renewer.shutdownNow();
  }

  /**
   * {@link #close()}, giving back every claim still held first, so that another worker may take
   * those keys now rather than a lease later: for holders whose every action is fenced by the claim
   * (a run's steps), never for claims on work that may be under way unfenced (a tool call). Giving
   * back is itself fenced by each claim's token (one another worker took over meanwhile is left
   * alone), so a holder whose step still runs finds its claim gone at its next fenced write and
   * abandons the step without acting. A claim the store cannot give back (it is unreachable) runs
   * out. Idempotent.
   */
  public void closeAndGiveBack() {
    closed = true;
    for (Held held : List.copyOf(holding)) {
      try {
        held.release();
      } catch (RuntimeException e) {
        LOG.debug("could not give back the claim on '{}' while closing; it runs out: {}", held.claim().key(), e.toString());
      }
    }
    close();
  }

  /** On the time source's timer: hands {@code held}'s due renewal to the renewal thread, and nothing more. */
  private void due(Held held) {
    dueNow.add(held);
    if (!draining.getAndSet(true)) {
      try {
        renewer.execute(this::renewDue);
      } catch (RejectedExecutionException closing) {
        LOG.debug("leases closed; the claims they held run out");
      }
    }
  }

  /**
   * On the renewal thread: renews every claim that came due, in one call to the claims per claims
   * object and lease ({@link WorkClaims#renewAll}: one statement on PostgreSQL however many runs
   * this worker holds), then schedules each one's next renewal. Holds no lock during the I/O.
   */
  private void renewDue() {
    draining.set(false);
    Map<WorkClaims, Map<Duration, Map<Held, Claim>>> batches = new IdentityHashMap<>();
    long now = time.nanoTime();
    long latest = 0;
    int late = 0;
    for (Held held; (held = dueNow.poll()) != null; ) {
      Claim current = held.renewable();
      if (current == null) {
        continue;
      }
      long lateBy = now - held.due;
      maxLateNanos.accumulateAndGet(lateBy, Math::max);
      if (lateBy > held.lease.toNanos() / 3) {
        late++;
        latest = Math.max(latest, lateBy);
      }
      batches.computeIfAbsent(held.claims, k -> new HashMap<>()).computeIfAbsent(held.lease, k -> new LinkedHashMap<>()).put(held, current);
    }
    if (late > 0) {
      LOG.warn("renewed {} claim(s) up to {} ms late (lease {} ms or more): this process was busy or stalled", late, latest / 1_000_000,
          batches.values().stream().flatMap(m -> m.keySet().stream()).mapToLong(Duration::toMillis).min().orElse(0));
    }
    batches.forEach((claims, byLease) -> byLease.forEach((lease, batch) -> renewBatch(claims, lease, batch)));
  }

  private void renewBatch(WorkClaims claims, Duration lease, Map<Held, Claim> batch) {
    long sent = time.nanoTime();
    renewals.addAndGet(batch.size());
    Map<String, Claim> renewed;
    try {
      renewed = claims.renewAll(List.copyOf(batch.values()), lease);
    } catch (RuntimeException e) {
      failed.addAndGet(batch.size());
      LOG.warn("could not renew {} claim(s): {}", batch.size(), e.getMessage());
      batch.keySet().forEach(h -> h.schedule(sent)); // tried again a third of the lease later; a holder past its lease stops acting
      return;
    }
    batch.forEach((held, current) -> {
      try {
        held.apply(current, Optional.ofNullable(renewed.get(current.key())).filter(r -> r.token() == current.token()), sent);
        held.schedule(sent);
      } catch (ClaimLostException lostIt) {
        // marked lost and logged: its holder stops acting on it
      }
    });
  }

  /** A claim being renewed. Thread-safe. */
  public final class Held {
    private final BreadcrumbStore store;
    private final WorkClaims claims;
    private final Duration lease;
    private Claim claim;
    /** {@link TimeSource#nanoTime()} by which the claim may have run out: a lease after the last successful claim or renewal was sent. */
    private long validUntil;
    private volatile long due;
    private boolean stopped;
    private boolean lost;
    private TimeSource.@Nullable Timer next;

    private Held(BreadcrumbStore store, WorkClaims claims, Claim claim, Duration lease, long sent) {
      this.store = store;
      this.claims = claims;
      this.claim = claim;
      this.lease = lease;
      this.validUntil = sent + lease.toNanos();
    }

    /**
     * Sets the next renewal a third of the lease after {@code sent}, when the last claim or renewal
     * was sent ({@link TimeSource#nanoTime()}): at a fixed rate, so that the time a renewal spent in
     * the store does not widen the gap between renewals (the lease counts from the send).
     */
    private synchronized void schedule(long sent) {
      if (stopped || lost || closed) {
        return;
      }
      due = sent + lease.toNanos() / 3;
      next = time.scheduleAtNanoTime(due, () -> due(this)); // read and set in one step: a clock moved between them cannot set it late
    }

    /** This holder's claim, if it is still renewed: what the next batch renews. */
    private synchronized @Nullable Claim renewable() {
      return stopped || lost ? null : claim;
    }

    /** Renews {@code current} now, on the calling thread; throws when it was lost. */
    private void renewed(Claim current) {
      long sent = time.nanoTime();
      renewals.incrementAndGet();
      apply(current, claims.renew(current, lease), sent);
    }

    /**
     * Takes in the outcome of renewing {@code current} (sent at {@code sent}): the new claim, or
     * empty when it was lost.
     *
     * @throws ClaimLostException when it was lost
     */
    private void apply(Claim current, Optional<Claim> renewed, long sent) {
      synchronized (this) {
        if (stopped && !lost) {
          return; // completed or released meanwhile: nothing was lost
        }
        if (renewed.isEmpty()) {
          markLost("a renewal found it taken over, completed or run out");
          throw new ClaimLostException(current.key(), "a renewal found it taken over, completed or run out");
        }
        if (!stopped && !lost && renewed.get().token() == claim.token()) {
          claim = renewed.get();
          validUntil = Math.max(validUntil, sent + lease.toNanos());
        }
      }
    }

    private synchronized void markLost(String why) {
      if (!lost) {
        lost = true;
        Leases.this.lost.incrementAndGet();
        holding.remove(this);
        LOG.warn("lost the claim on '{}' while holding it ({}): this worker stops acting on it", claim.key(), why);
      }
      if (next != null) {
        next.cancel();
      }
    }

    /** The claim as last renewed. */
    public synchronized Claim claim() {
      return claim;
    }

    /** Whether a renewal or a fenced write found the claim taken over, completed or run out. */
    public synchronized boolean lost() {
      return lost;
    }

    /**
     * Whether this worker may act without asking the claims: not lost, not stopped, and less than a
     * lease has passed since the last successful renewal was sent. False for a process that was
     * stalled longer than its lease, even if nobody took its claim over: {@link #check()} then asks
     * the claims.
     */
    public synchronized boolean valid() {
      return !lost && !stopped && time.nanoTime() - validUntil < 0;
    }

    /**
     * Checks with the claims, now, that this worker still holds the claim (a renewal on the calling
     * thread): the check before a side effect such as a tool call. A claim whose lease ran out with
     * nobody taking the key over is still held (the token, not the clock, fences: nobody else could
     * act on it meanwhile), and is renewed.
     *
     * @throws ClaimLostException if it does not (taken over, completed, given back, or stopped here)
     * @throws RuntimeException what the claims throw (the store is unreachable)
     */
    public void verify() {
      Claim current;
      synchronized (this) {
        if (lost || stopped) {
          throw lapsed();
        }
        current = claim;
      }
      renewed(current);
    }

    /**
     * Checks that this worker may still act: at once while its lease is fresh ({@link #valid()});
     * after a stall past its lease, by asking the claims ({@link #verify()}), so a live holder
     * whose renewals came late keeps its work unless another worker took it over meanwhile.
     *
     * @throws ClaimLostException if it may not
     * @throws RuntimeException what the claims throw (the store is unreachable)
     */
    public void check() {
      if (!valid()) {
        verify();
      }
    }

    private synchronized ClaimLostException lapsed() {
      String why = lost ? "found lost" : "no longer renewed";
      markLost(why);
      return new ClaimLostException(claim.key(), why);
    }

    /**
     * Writes {@code create} fenced by this claim: in the store's own claims, checked in the same
     * atomic step as the write ({@link BreadcrumbStore#create(BreadcrumbCreate, Claim)}); in this
     * JVM's claims (a store without claims), checked and written while they are locked. The fence
     * is the claim's token: the write happens only if nobody took the key over since this worker
     * took it (and it is not completed or given back), whatever this worker's clock says.
     *
     * @return the stored record
     * @throws ClaimLostException if the claim is lost; nothing is written
     */
    public Breadcrumb create(BreadcrumbCreate create) {
      Claim fence;
      synchronized (this) {
        if (lost || stopped) {
          throw lapsed();
        }
        fence = claim;
      }
      try {
        if (store.claims().isPresent()) {
          return store.create(create, fence);
        }
        synchronized (claims) {
          if (claims instanceof MemoryClaims local && !local.isCurrent(fence)) {
            throw new ClaimLostException(fence.key(), "taken over, completed or given back in this JVM's claims");
          }
          return store.create(create);
        }
      } catch (ClaimLostException e) {
        markLost("a fenced write found it taken over, completed or given back");
        throw e;
      }
    }

    /** Stops renewing and marks the work done: nobody can claim the key again. */
    public void complete() {
      claims.complete(stop());
    }

    /** Stops renewing and gives the key back, so another worker may take it now; a lost claim is left as it is. */
    public void release() {
      boolean wasLost;
      synchronized (this) {
        wasLost = lost;
      }
      Claim last = stop();
      if (!wasLost) {
        claims.release(last);
      }
    }

    /** Stops renewing and leaves the claim to run out (for a holder that can no longer reach the claims). */
    public synchronized Claim stop() {
      stopped = true;
      holding.remove(this);
      if (next != null) {
        next.cancel();
      }
      return claim;
    }
  }
}
