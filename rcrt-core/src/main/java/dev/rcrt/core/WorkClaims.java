package dev.rcrt.core;

import dev.rcrt.core.internal.MemoryClaims;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Leases that let exactly one of many workers take each piece of work, across every process that
 * shares a store: claim it, renew the claim while working, complete it when done. A worker that
 * dies stops renewing; once its lease has run out another worker may claim the work (takeover).
 * Each successful claim of a key gets a larger fencing {@link Claim#token()}, so a worker can tell
 * it lost the work to a later one.
 *
 * <p>Used by {@code ToolRunner.listen()} so that each {@code tool.request.v1} is run by one runner
 * of a fleet. Times are judged on the store's clock. Implementations must be atomic across every
 * process that can reach them, and thread-safe.
 */
public interface WorkClaims {

  /**
   * One worker's hold on one key.
   *
   * @param key what is claimed, such as {@code tool.request:<id>}
   * @param owner who holds it, such as {@code runner:host:pid:…}
   * @param token grows with every successful claim of the key: the larger token is the current holder
   * @param expiresAt when the lease runs out unless renewed
   */
  record Claim(String key, String owner, long token, Instant expiresAt) {
    /** Checks that no part is null. */
    public Claim {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(owner, "owner");
      Objects.requireNonNull(expiresAt, "expiresAt");
    }
  }

  /**
   * Claims {@code key} for {@code owner} for {@code lease}, if it is not completed and nobody holds
   * an unexpired claim on it.
   *
   * @return the claim, or empty if another worker holds it or it is completed
   */
  Optional<Claim> tryClaim(String key, String owner, Duration lease);

  /**
   * What one attempt to claim a key found.
   *
   * @param claim the claim taken, or null when it was not
   * @param heldUntil when it was not taken because another worker holds it: when that claim runs out
   *     unless renewed; else null
   * @param completed when it was not taken because the key is completed
   */
  record Attempt(@Nullable Claim claim, @Nullable Instant heldUntil, boolean completed) {
    /** Whether the key was claimed. */
    public boolean taken() {
      return claim != null;
    }
  }

  /**
   * Claims {@code key} as {@link #tryClaim} does and, when it cannot, says why: another worker's
   * hold and when it runs out, or the key's completion. Both answers may be neither (the key was
   * given back, or its holder's claim ran out, between the attempt and the look): look again. In
   * one round trip where the implementation can (PostgreSQL: one statement), so that a worker that
   * finds work taken learns when to look again without another read. The default calls {@link
   * #tryClaim}, then {@link #heldUntil} and {@link #isCompleted}.
   *
   * @return the attempt's outcome; never null
   */
  default Attempt attempt(String key, String owner, Duration lease) {
    Optional<Claim> claim = tryClaim(key, owner, lease);
    if (claim.isPresent()) {
      return new Attempt(claim.get(), null, false);
    }
    Optional<Instant> until = heldUntil(key);
    return until.isPresent() ? new Attempt(null, until.get(), false) : new Attempt(null, null, isCompleted(key));
  }

  /**
   * Extends {@code claim} by {@code lease} from now, if it is still the current claim: nobody took
   * the key over since (its token is the key's), it is not completed and not given back. A claim
   * whose lease ran out with nobody taking the key over is still current (nobody else could act on
   * it meanwhile) and is renewed: the token, not the clock, fences.
   *
   * @return the extended claim, or empty if it was lost (taken over after expiring, completed or released)
   */
  Optional<Claim> renew(Claim claim, Duration lease);

  /**
   * Extends each of {@code claims} by {@code lease} from now, where it is still the current claim,
   * in one round trip where the implementation can (PostgreSQL: one statement): how a worker that
   * holds many claims renews them without queueing one renewal behind another. The default renews
   * each in turn with {@link #renew}.
   *
   * @param claims claims of distinct keys
   * @return the extended claims by key; a claim that was lost (taken over, completed or run out) is absent
   */
  default Map<String, Claim> renewAll(List<Claim> claims, Duration lease) {
    Map<String, Claim> renewed = new HashMap<>();
    for (Claim claim : claims) {
      renew(claim, lease).ifPresent(c -> renewed.put(c.key(), c));
    }
    return renewed;
  }

  /**
   * Marks the work of {@code claim}'s key done: no one can claim it again. Completing a claim that
   * was taken over still completes the key (the work was done).
   */
  void complete(Claim claim);

  /** Gives {@code claim} back before its lease ends, so another worker may take the key now; a lost claim is ignored. */
  void release(Claim claim);

  /**
   * When the current claim on {@code key} runs out, if one is held; empty if the key is free or
   * completed.
   */
  Optional<Instant> heldUntil(String key);

  /** Whether {@code key} was completed. */
  boolean isCompleted(String key);

  /** The key prefix of fleet members' claims ({@code member:<group>:<owner>}), which {@link #holders} is meant for. */
  String MEMBER_PREFIX = "member:";

  /**
   * The claims held now on keys that start with {@code keyPrefix}: unexpired on the claims'
   * clock, not completed, not given back, in no particular order. Meant for the few keys under a
   * prefix of their own, such as a fleet's members ({@value #MEMBER_PREFIX}{@code <group>:<owner>},
   * each held by the member while it lives): PostgreSQL keeps an index of the keys under {@value
   * #MEMBER_PREFIX} for it and reads others by scanning every claim. The default lists nothing: an
   * implementation that cannot list claims knows no members, and each worker of its fleet then
   * tries every piece of work, as it would with no membership at all.
   *
   * @param keyPrefix the start of the keys wanted; an empty prefix lists every held claim
   * @return the claims, never null
   */
  default List<Claim> holders(String keyPrefix) {
    return List.of();
  }

  /**
   * Claims kept in this JVM's memory, judged on {@code clock}: atomic among the workers of one
   * process, for a store that has no claims of its own. Completed keys are kept for the claims'
   * life. Thread-safe.
   */
  static WorkClaims inMemory(Clock clock) {
    return new MemoryClaims(Objects.requireNonNull(clock, "clock"));
  }
}
