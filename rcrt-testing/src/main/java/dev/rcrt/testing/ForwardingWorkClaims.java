package dev.rcrt.testing;

import dev.rcrt.core.WorkClaims;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * {@link WorkClaims} that hand every call to others ({@link #delegate}): the base of a test's
 * claims that count or fail some calls and leave the rest alone. Every method is forwarded as it
 * is, the one-round-trip ones ({@link #attempt}, {@link #renewAll}, {@link #holders}) included, so
 * a wrapper changes nothing it does not override. Thread-safe if the delegate is.
 */
public class ForwardingWorkClaims implements WorkClaims {
  /** The claims every call goes to unless overridden. */
  protected final WorkClaims delegate;

  /** Forwards every call to {@code delegate}. */
  public ForwardingWorkClaims(WorkClaims delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  @Override
  public Optional<Claim> tryClaim(String key, String owner, Duration lease) {
    return delegate.tryClaim(key, owner, lease);
  }

  @Override
  public Attempt attempt(String key, String owner, Duration lease) {
    return delegate.attempt(key, owner, lease);
  }

  @Override
  public Optional<Claim> renew(Claim claim, Duration lease) {
    return delegate.renew(claim, lease);
  }

  @Override
  public Map<String, Claim> renewAll(List<Claim> claims, Duration lease) {
    return delegate.renewAll(claims, lease);
  }

  @Override
  public void complete(Claim claim) {
    delegate.complete(claim);
  }

  @Override
  public void release(Claim claim) {
    delegate.release(claim);
  }

  @Override
  public Optional<Instant> heldUntil(String key) {
    return delegate.heldUntil(key);
  }

  @Override
  public boolean isCompleted(String key) {
    return delegate.isCompleted(key);
  }

  @Override
  public List<Claim> holders(String keyPrefix) {
    return delegate.holders(keyPrefix);
  }
}
