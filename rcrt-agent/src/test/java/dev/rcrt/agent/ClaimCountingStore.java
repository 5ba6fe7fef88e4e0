package dev.rcrt.agent;

import dev.rcrt.core.BreadcrumbListener;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.core.WorkClaims;
import dev.rcrt.testing.ForwardingBreadcrumbStore;
import dev.rcrt.testing.ForwardingWorkClaims;
import dev.rcrt.tools.ToolResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A store that is {@code inner} in every respect, with claims that count, per key, the attempts to
 * claim it, the reads of whether it was completed, and the reads of who holds it: what a process
 * spends on a run.
 */
final class ClaimCountingStore extends ForwardingBreadcrumbStore {
  private final WorkClaims claims;
  private final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> completedReads = new ConcurrentHashMap<>();
  /** A permit for each {@code heldUntil} read. */
  final Semaphore heldReads = new Semaphore(0);
  /** A permit for each {@code tool.response.v1} event a listener subscribed here has handled (returned from). */
  final Semaphore responsesHandled = new Semaphore(0);

  ClaimCountingStore(BreadcrumbStore inner) {
    super(inner);
    this.claims = new ForwardingWorkClaims(inner.claims().orElseThrow()) {
      @Override
      public Optional<Claim> tryClaim(String key, String owner, Duration lease) {
        count(attempts, key);
        return delegate.tryClaim(key, owner, lease);
      }

      @Override
      public Attempt attempt(String key, String owner, Duration lease) {
        count(attempts, key); // one round trip: who holds the key, or that it is completed, comes with it
        return delegate.attempt(key, owner, lease);
      }

      @Override
      public Optional<Instant> heldUntil(String key) {
        try {
          return delegate.heldUntil(key);
        } finally {
          heldReads.release();
        }
      }

      @Override
      public boolean isCompleted(String key) {
        count(completedReads, key);
        return delegate.isCompleted(key);
      }
    };
  }

  /** How many times this store's claims were asked for {@code key}. */
  int attemptsOn(String key) {
    return counted(attempts, key);
  }

  /** How many times this store's claims were asked whether {@code key} was completed. */
  int completedReadsOn(String key) {
    return counted(completedReads, key);
  }

  private static void count(Map<String, AtomicInteger> counts, String key) {
    counts.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
  }

  private static int counted(Map<String, AtomicInteger> counts, String key) {
    AtomicInteger n = counts.get(key);
    return n == null ? 0 : n.get();
  }

  @Override
  public Subscription subscribe(Selector selector, BreadcrumbListener listener) {
    return super.subscribe(selector, event -> {
      try {
        listener.onEvent(event);
      } finally {
        if (ToolResponse.SCHEMA.equals(event.breadcrumb().schemaName())) {
          responsesHandled.release();
        }
      }
    });
  }

  @Override
  public Optional<WorkClaims> claims() {
    return Optional.of(claims);
  }
}
