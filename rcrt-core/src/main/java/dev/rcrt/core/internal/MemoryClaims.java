package dev.rcrt.core.internal;

import dev.rcrt.core.WorkClaims;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * {@link WorkClaims} in one JVM's memory, on a clock. Completed keys are remembered until {@link
 * #forget} (the in-memory store forgets a request's key when the request is deleted or purged).
 */
public final class MemoryClaims implements WorkClaims {
  private final Supplier<Instant> clock;
  private final Map<String, State> states = new HashMap<>();

  private record State(String owner, long token, Instant expiresAt, boolean done) {}

  public MemoryClaims(Clock clock) {
    this(clock::instant);
  }

  /** Claims judged on the wall time {@code now} reads. */
  public MemoryClaims(Supplier<Instant> now) {
    this.clock = now;
  }

  /**
   * Whether {@code claim} is the key's current claim: same token (nobody took the key over), not
   * completed, not given back. Callers that must act atomically with this answer hold this
   * object's monitor meanwhile.
   */
  public synchronized boolean isCurrent(Claim claim) {
    State s = states.get(claim.key());
    return s != null && !s.done && s.token == claim.token() && !s.expiresAt.equals(Instant.MIN);
  }

  @Override
  public synchronized Optional<Claim> tryClaim(String key, String owner, Duration lease) {
    State s = states.get(key);
    Instant now = clock.get();
    if (s != null && (s.done || s.expiresAt.isAfter(now))) {
      return Optional.empty();
    }
    State next = new State(owner, s == null ? 1 : s.token + 1, now.plus(lease), false);
    states.put(key, next);
    return Optional.of(new Claim(key, owner, next.token, next.expiresAt));
  }

  /** In one step under this object's monitor. */
  @Override
  public synchronized Attempt attempt(String key, String owner, Duration lease) {
    Optional<Claim> claim = tryClaim(key, owner, lease);
    if (claim.isPresent()) {
      return new Attempt(claim.get(), null, false);
    }
    State s = java.util.Objects.requireNonNull(states.get(key), "a key not taken has a state");
    return s.done ? new Attempt(null, null, true) : new Attempt(null, s.expiresAt, false);
  }

  @Override
  public synchronized Optional<Claim> renew(Claim claim, Duration lease) {
    State s = states.get(claim.key());
    if (s == null || s.done || s.token != claim.token() || s.expiresAt.equals(Instant.MIN)) {
      return Optional.empty(); // taken over, completed or given back; a lease that ran out with nobody taking over is renewed
    }
    State next = new State(s.owner, s.token, clock.get().plus(lease), false);
    states.put(claim.key(), next);
    return Optional.of(new Claim(claim.key(), s.owner, s.token, next.expiresAt));
  }

  @Override
  public synchronized void complete(Claim claim) {
    State s = states.get(claim.key());
    long token = s == null ? claim.token() : s.token;
    states.put(claim.key(), new State(claim.owner(), token, clock.get(), true));
  }

  @Override
  public synchronized void release(Claim claim) {
    State s = states.get(claim.key());
    if (s != null && !s.done && s.token == claim.token()) {
      states.put(claim.key(), new State(s.owner, s.token, Instant.MIN, false));
    }
  }

  @Override
  public synchronized Optional<Instant> heldUntil(String key) {
    State s = states.get(key);
    return s == null || s.done || !s.expiresAt.isAfter(clock.get()) ? Optional.empty() : Optional.of(s.expiresAt);
  }

  @Override
  public synchronized boolean isCompleted(String key) {
    State s = states.get(key);
    return s != null && s.done;
  }

  @Override
  public synchronized List<Claim> holders(String keyPrefix) {
    Instant now = clock.get();
    List<Claim> held = new ArrayList<>();
    states.forEach((key, s) -> {
      if (key.startsWith(keyPrefix) && !s.done && s.expiresAt.isAfter(now)) {
        held.add(new Claim(key, s.owner, s.token, s.expiresAt));
      }
    });
    return held;
  }

  /** Drops what is known about {@code key}. */
  public synchronized void forget(String key) {
    states.remove(key);
  }
}
