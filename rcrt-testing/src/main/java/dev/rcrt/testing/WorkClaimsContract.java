package dev.rcrt.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.WorkClaims;
import dev.rcrt.core.WorkClaims.Claim;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link WorkClaims} must have: one holder at a time, takeover only after the
 * lease runs out, fencing tokens that grow, renewals that fail once the claim is lost, completion
 * that is final. Extend it and implement {@link #newClaims(Clock)}; each test gets fresh claims on
 * a {@link TestClock} standing at {@link BreadcrumbStoreContract#START}.
 */
public abstract class WorkClaimsContract {
  private static final Duration LEASE = Duration.ofSeconds(30);

  /** Fresh, empty claims telling time by {@code clock}. */
  protected abstract WorkClaims newClaims(Clock clock);

  /** The clock the claims tell time by; tests move it. */
  protected TestClock clock;
  /** The claims under test, fresh for each test. */
  protected WorkClaims claims;

  @BeforeEach
  void freshClaims() {
    clock = new TestClock(BreadcrumbStoreContract.START);
    claims = newClaims(clock);
  }

  @Test
  void aFreeKeyIsClaimedAndThenHeldUntilTheLeaseEnds() {
    Claim first = claims.tryClaim("k", "a", LEASE).orElseThrow();

    assertThat(first.owner()).isEqualTo("a");
    assertThat(first.expiresAt()).isEqualTo(BreadcrumbStoreContract.START.plus(LEASE));
    assertThat(claims.tryClaim("k", "b", LEASE)).as("held by a").isEmpty();
    assertThat(claims.heldUntil("k")).contains(first.expiresAt());
    assertThat(claims.tryClaim("other", "b", LEASE)).as("another key").isPresent();
  }

  @Test
  void anAttemptThatTakesNothingSaysWhoHoldsTheKeyUntilWhenOrThatItIsCompleted() {
    Claim first = taken(claims.attempt("k", "a", LEASE));
    assertThat(first).isEqualTo(new Claim("k", "a", first.token(), BreadcrumbStoreContract.START.plus(LEASE)));

    clock.advance(Duration.ofSeconds(10));
    Claim renewed = claims.renew(first, LEASE).orElseThrow();
    WorkClaims.Attempt held = claims.attempt("k", "b", LEASE);
    assertThat(held).as("held by a, until its renewal runs out").isEqualTo(new WorkClaims.Attempt(null, renewed.expiresAt(), false));

    claims.complete(renewed);
    assertThat(claims.attempt("k", "b", LEASE)).as("completed").isEqualTo(new WorkClaims.Attempt(null, null, true));

    clock.advance(LEASE.multipliedBy(2));
    Claim other = taken(claims.attempt("other", "b", LEASE));
    claims.release(other);
    assertThat(taken(claims.attempt("other", "c", LEASE)).token()).as("given back: free at once, under a larger token").isGreaterThan(other.token());
  }

  /** The claim {@code attempt} took; fails when it took none. */
  private static Claim taken(WorkClaims.Attempt attempt) {
    Claim claim = attempt.claim();
    assertThat(claim).as("taken: " + attempt).isNotNull();
    assertThat(attempt.heldUntil()).isNull();
    return java.util.Objects.requireNonNull(claim);
  }

  @Test
  void anExpiredClaimIsTakenOverWithALargerTokenAndTheOldHolderCannotRenew() {
    Claim first = claims.tryClaim("k", "a", LEASE).orElseThrow();
    clock.advance(LEASE);

    Claim second = claims.tryClaim("k", "b", LEASE).orElseThrow();

    assertThat(second.token()).isGreaterThan(first.token());
    assertThat(claims.renew(first, LEASE)).as("a lost it").isEmpty();
    assertThat(claims.renew(second, LEASE)).isPresent();
  }

  @Test
  void renewingKeepsTheClaimPastItsFirstLease() {
    Claim first = claims.tryClaim("k", "a", LEASE).orElseThrow();
    clock.advance(Duration.ofSeconds(20));
    Claim renewed = claims.renew(first, LEASE).orElseThrow();
    clock.advance(Duration.ofSeconds(20));

    assertThat(renewed.expiresAt()).isEqualTo(BreadcrumbStoreContract.START.plus(Duration.ofSeconds(50)));
    assertThat(claims.tryClaim("k", "b", LEASE)).as("still held after 40 s").isEmpty();
  }

  @Test
  void renewingManyAtOnceExtendsTheCurrentClaimsAndLeavesOutTheLostOnes() {
    Claim held = claims.tryClaim("held", "a", LEASE).orElseThrow();
    Claim completed = claims.tryClaim("completed", "a", LEASE).orElseThrow();
    Claim takenOver = claims.tryClaim("taken", "a", Duration.ofSeconds(10)).orElseThrow();
    claims.complete(completed);
    clock.advance(Duration.ofSeconds(20));
    Claim other = claims.tryClaim("taken", "b", LEASE).orElseThrow();

    java.util.Map<String, Claim> renewed = claims.renewAll(List.of(held, completed, takenOver), LEASE);

    assertThat(renewed).containsOnlyKeys("held");
    assertThat(renewed.get("held")).isEqualTo(new Claim("held", "a", held.token(), BreadcrumbStoreContract.START.plus(Duration.ofSeconds(50))));
    clock.advance(Duration.ofSeconds(20));
    assertThat(claims.tryClaim("held", "b", LEASE)).as("still held after 40 s").isEmpty();
    assertThat(claims.heldUntil("taken")).as("b's claim is untouched").contains(other.expiresAt());
    assertThat(claims.renewAll(List.of(), LEASE)).isEmpty();
  }

  @Test
  void aClaimWhoseLeaseRanOutWithNobodyTakingOverIsStillRenewedByItsHolder() {
    Claim first = claims.tryClaim("k", "a", LEASE).orElseThrow();
    clock.advance(LEASE.plusSeconds(5)); // the holder was stalled; nobody claimed the key meanwhile
    assertThat(claims.heldUntil("k")).as("free to take over").isEmpty();

    Claim renewed = claims.renew(first, LEASE).orElseThrow();

    assertThat(renewed.token()).as("the token, not the clock, fences").isEqualTo(first.token());
    assertThat(claims.tryClaim("k", "b", LEASE)).as("held again").isEmpty();
    claims.release(renewed);
    assertThat(claims.renew(renewed, LEASE)).as("a claim given back is not renewed").isEmpty();
  }

  @Test
  void aCompletedKeyCanNeverBeClaimedAgain() {
    Claim first = claims.tryClaim("k", "a", LEASE).orElseThrow();
    claims.complete(first);
    clock.advance(LEASE.multipliedBy(10));

    assertThat(claims.isCompleted("k")).isTrue();
    assertThat(claims.tryClaim("k", "b", LEASE)).isEmpty();
    assertThat(claims.heldUntil("k")).isEmpty();
    assertThat(claims.renew(first, LEASE)).isEmpty();
  }

  @Test
  void aReleasedKeyIsFreeAtOnceButAReleaseOfALostClaimChangesNothing() {
    Claim first = claims.tryClaim("k", "a", LEASE).orElseThrow();
    claims.release(first);
    Claim second = claims.tryClaim("k", "b", LEASE).orElseThrow();

    claims.release(first); // stale: must not free b's claim
    assertThat(claims.tryClaim("k", "c", LEASE)).isEmpty();
    assertThat(claims.heldUntil("k")).contains(second.expiresAt());
  }

  @Test
  void manyWorkersRacingForOneKeyLeaveExactlyOneHolder() throws Exception {
    int workers = 16;
    ExecutorService pool = Executors.newFixedThreadPool(8);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<Optional<Claim>>> results = new ArrayList<>();
      for (int i = 0; i < workers; i++) {
        String owner = "w" + i;
        results.add(pool.submit(() -> {
          start.await();
          return claims.tryClaim("race", owner, LEASE);
        }));
      }
      start.countDown();
      int won = 0;
      for (Future<Optional<Claim>> r : results) {
        won += r.get(30, TimeUnit.SECONDS).isPresent() ? 1 : 0;
      }
      assertThat(won).isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void holdersListsTheLiveClaimsUnderAPrefixAndNothingExpiredCompletedOrGivenBack() {
    Claim a = claims.tryClaim(WorkClaims.MEMBER_PREFIX + "g:a", "a", LEASE).orElseThrow();
    Claim b = claims.tryClaim(WorkClaims.MEMBER_PREFIX + "g:b", "b", Duration.ofSeconds(5)).orElseThrow();
    Claim c = claims.tryClaim(WorkClaims.MEMBER_PREFIX + "g:c", "c", LEASE).orElseThrow();
    Claim d = claims.tryClaim(WorkClaims.MEMBER_PREFIX + "g:d", "d", LEASE).orElseThrow();
    Claim e = claims.tryClaim(WorkClaims.MEMBER_PREFIX + "other:e", "e", LEASE).orElseThrow();
    Claim f = claims.tryClaim("g:f", "f", LEASE).orElseThrow();

    assertThat(claims.holders(WorkClaims.MEMBER_PREFIX + "g:")).containsExactlyInAnyOrder(a, b, c, d);

    claims.release(c);
    claims.complete(d);
    clock.advance(Duration.ofSeconds(10));
    assertThat(claims.holders(WorkClaims.MEMBER_PREFIX + "g:")).as("b ran out, c was given back, d completed").containsExactly(a);
    assertThat(claims.holders(WorkClaims.MEMBER_PREFIX + "g:x")).isEmpty();
    assertThat(claims.holders(WorkClaims.MEMBER_PREFIX)).containsExactlyInAnyOrder(a, e);
    assertThat(claims.holders("g:")).as("any prefix").containsExactly(f);
  }
}
