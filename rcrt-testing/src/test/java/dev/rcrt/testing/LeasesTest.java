package dev.rcrt.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.ClaimLostException;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.Selector;
import dev.rcrt.core.TimeSource;
import dev.rcrt.core.WorkClaims;
import dev.rcrt.core.spi.Leases;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Leases}: renewals on a thread of their own, a holder that may no longer act once its
 * lease has passed unrenewed, and writes fenced by the claim.
 */
class LeasesTest {
  private static final Duration LEASE = Duration.ofSeconds(3);

  private final TestClock clock = new TestClock();
  private final InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().clock(clock).eventExecutor(Runnable::run).build();
  private final Leases leases = new Leases("test", clock);

  @AfterEach
  void close() {
    leases.close();
  }

  /** The claims of the store, with batch renewals (the renewal thread's) that block until the test lets them through. */
  private static final class SlowClaims extends ForwardingWorkClaims {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final AtomicInteger renewals = new AtomicInteger();
    final java.util.concurrent.Semaphore renewed = new java.util.concurrent.Semaphore(0);
    /** Runs inside each batch renewal, once let through: what the store's time is spent on. */
    volatile Runnable during = () -> {};

    SlowClaims(WorkClaims inner) {
      super(inner);
    }

    /** The renewal thread's batches: they wait for {@link #release}. */
    @Override
    public java.util.Map<String, Claim> renewAll(java.util.List<Claim> claims, Duration lease) {
      renewals.incrementAndGet();
      entered.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      try {
        during.run();
        return delegate.renewAll(claims, lease);
      } finally {
        renewed.release();
      }
    }
  }

  @Test
  void aRenewalThatHangsInTheStoreHoldsUpNeitherTheTimerNorTheHolder() throws Exception {
    SlowClaims claims = new SlowClaims(store.claims().orElseThrow());
    Leases.Held held = taken(leases.attempt(store, claims, "k", "a", LEASE));
    clock.advance(LEASE.dividedBy(3)); // the renewal comes due: the clock's thread only hands it over
    assertThat(claims.entered.await(30, TimeUnit.SECONDS)).as("the renewal runs on the leases' own thread").isTrue();
    assertThat(held.valid()).as("within its lease, the holder may act while the renewal waits").isTrue();
    AtomicInteger fired = new AtomicInteger();
    clock.schedule(Duration.ofMillis(1), fired::incrementAndGet);
    clock.advance(Duration.ofMillis(1));
    assertThat(fired).as("another timer of the same time source fires while the renewal hangs").hasValue(1);
    claims.release.countDown();
    held.complete();
  }

  @Test
  void aHolderStalledPastItsLeaseKeepsItsWorkUntilAnotherTakesItOverAndThenWritesNothing() throws Exception {
    SlowClaims claims = new SlowClaims(store.claims().orElseThrow());
    Leases.Held held = taken(leases.attempt(store, claims, "k", "a", LEASE));
    held.create(BreadcrumbCreate.builder("f.v1", "while held").build());
    clock.advance(LEASE.dividedBy(3));
    assertThat(claims.entered.await(30, TimeUnit.SECONDS)).isTrue();
    clock.advance(LEASE); // the renewal never came back: as far as the holder knows, its lease ran out

    assertThat(held.valid()).as("it may not act without asking the claims").isFalse();
    held.create(BreadcrumbCreate.builder("f.v1", "stalled, nobody took over").build()); // the token fences, not the clock
    assertThat(store.claims().orElseThrow().tryClaim("k", "b", LEASE)).as("another worker takes it over").isPresent();
    assertThatThrownBy(() -> held.create(BreadcrumbCreate.builder("f.v1", "after the takeover").build()))
        .isInstanceOf(ClaimLostException.class);
    claims.release.countDown();
    assertThatThrownBy(held::check).isInstanceOf(ClaimLostException.class);
    assertThat(store.search(Selector.schema("f.v1"), 10, 0)).extracting(b -> b.title())
        .containsExactlyInAnyOrder("while held", "stalled, nobody took over");
    assertThat(held.lost()).isTrue();
  }

  @Test
  void aHolderWhoseLeaseRanOutWithNobodyTakingOverChecksWithTheClaimsAndGoesOn() throws Exception {
    SlowClaims claims = new SlowClaims(store.claims().orElseThrow());
    Leases.Held held = taken(leases.attempt(store, claims, "k", "a", LEASE));
    clock.advance(LEASE.dividedBy(3));
    assertThat(claims.entered.await(30, TimeUnit.SECONDS)).isTrue();
    clock.advance(LEASE.multipliedBy(2)); // stalled as by GC or SIGSTOP: its renewals never came back
    assertThat(held.valid()).isFalse();
    held.check(); // asks the claims: nobody took the key over, so it is still this worker's, renewed now
    assertThat(held.valid()).isTrue();
    assertThat(store.claims().orElseThrow().tryClaim("k", "b", LEASE)).as("renewed").isEmpty();
    claims.release.countDown();
    held.complete();
  }

  @Test
  void aTakenOverClaimFailsVerificationAndItsFencedWriteEvenWhenTheLeaseSeemsFresh() {
    WorkClaims claims = store.claims().orElseThrow();
    Leases.Held held = taken(leases.attempt(store, claims, "k", "a", Duration.ofSeconds(1)));
    leases.close(); // no renewals: the claim runs out in the store while this worker's view is refreshed by hand below
    clock.advance(Duration.ofMillis(1001));
    assertThat(claims.tryClaim("k", "b", LEASE)).isPresent();
    assertThatThrownBy(held::verify).isInstanceOf(ClaimLostException.class);
    assertThat(held.lost()).isTrue();
  }

  @Test
  void renewalsKeepTheClaimAndAreCountedWithTheirLateness() throws Exception {
    SlowClaims claims = new SlowClaims(store.claims().orElseThrow());
    claims.release.countDown(); // renewals go straight through
    java.util.concurrent.Semaphore scheduled = new java.util.concurrent.Semaphore(0);
    Leases leases = new Leases("counted", counting(scheduled, new java.util.concurrent.CopyOnWriteArrayList<>()));
    try {
      renewThrice(claims, scheduled, leases);
    } finally {
      leases.close();
    }
  }

  @Test
  void aRenewalIsDueAThirdOfTheLeaseAfterTheLastWasSentHoweverLongTheStoreTookToAnswer() throws Exception {
    SlowClaims claims = new SlowClaims(store.claims().orElseThrow());
    claims.release.countDown();
    claims.during = () -> clock.advance(LEASE.dividedBy(6)); // the store takes half the interval to answer
    java.util.concurrent.Semaphore scheduled = new java.util.concurrent.Semaphore(0);
    List<Duration> dues = new java.util.concurrent.CopyOnWriteArrayList<>();
    Leases leases = new Leases("fixed-rate", counting(scheduled, dues));
    try {
      Leases.Held held = taken(leases.attempt(store, claims, "k", "a", LEASE));
      assertThat(scheduled.tryAcquire(30, TimeUnit.SECONDS)).isTrue();
      clock.advance(LEASE.dividedBy(3));
      assertThat(claims.renewed.tryAcquire(30, TimeUnit.SECONDS)).isTrue();
      assertThat(scheduled.tryAcquire(30, TimeUnit.SECONDS)).as("the next renewal set").isTrue();
      // sent at a third, answered at a half: the next is due at two thirds, not at a half plus a third (which a stall of
      // the rest of the lease would then let run out)
      assertThat(dues).containsExactly(LEASE.dividedBy(3), LEASE.multipliedBy(2).dividedBy(3));
      held.complete();
    } finally {
      leases.close();
    }
  }

  @Test
  void aRenewalIsSetForTheMomentItIsDueEvenWhenTheClockMovesWhileItIsBeingSet() throws Exception {
    // MembersTest once waited 30 s for a renewal: the clock moved on another thread between the leases reading it and setting
    // the next renewal's timer, which a delay worked out from that reading then set a whole move too late
    SlowClaims claims = new SlowClaims(store.claims().orElseThrow());
    claims.release.countDown();
    java.util.concurrent.atomic.AtomicReference<Duration> jump = new java.util.concurrent.atomic.AtomicReference<>();
    claims.during = () -> jump.set(LEASE.dividedBy(3)); // the next reading of the clock, once renewed, moves it a third on
    TimeSource moving = new ForwardingTimeSource(clock) {
      @Override
      public long nanoTime() {
        long read = clock.nanoTime();
        Duration by = jump.getAndSet(null);
        if (by != null) {
          clock.advance(by);
        }
        return read;
      }
    };
    Leases leases = new Leases("moving", moving);
    try {
      Leases.Held held = taken(leases.attempt(store, claims, "k", "a", LEASE));
      clock.advance(LEASE.dividedBy(3));
      assertThat(claims.renewed.tryAcquire(30, TimeUnit.SECONDS)).as("renewal 1").isTrue();
      assertThat(clock.awaitPendingTimers(1, Duration.ofSeconds(30))).as("renewal 2 set").isTrue();
      jump.set(null);
      clock.advance(LEASE.multipliedBy(2).dividedBy(3).minus(Duration.ofNanos(clock.nanoTime()))); // to two thirds of the first lease
      assertThat(claims.renewed.tryAcquire(30, TimeUnit.SECONDS)).as("renewal 2, due a third after renewal 1 was sent").isTrue();
      held.complete();
    } finally {
      leases.close();
    }
  }

  /** The claim {@code attempt} took. */
  private static Leases.Held taken(Leases.Attempt attempt) {
    assertThat(attempt.held()).as("taken").isNotNull();
    return attempt.held();
  }

  /**
   * {@link #clock}, telling the test when a renewal's timer is set ({@code scheduled}) and for what
   * point of its monotonic time ({@code dues}, from the clock's zero). Renewals are set for a point,
   * read and set in one step ({@link TimeSource#scheduleAtNanoTime}): one set by a delay would miss
   * this and fail the test.
   */
  private TimeSource counting(java.util.concurrent.Semaphore scheduled, List<Duration> dues) {
    return new ForwardingTimeSource(clock) {
      @Override
      public Timer scheduleAtNanoTime(long nanoTime, Runnable task) {
        Timer timer = super.scheduleAtNanoTime(nanoTime, task);
        dues.add(Duration.ofNanos(nanoTime));
        scheduled.release();
        return timer;
      }
    };
  }

  private void renewThrice(SlowClaims claims, java.util.concurrent.Semaphore scheduled, Leases leases) throws Exception {
    Leases.Held held = taken(leases.attempt(store, claims, "k", "a", LEASE));
    for (int i = 0; i < 3; i++) {
      // advance only once the next renewal is set: advancing before would pass its due time unseen
      assertThat(scheduled.tryAcquire(30, TimeUnit.SECONDS)).as("renewal " + (i + 1) + " scheduled").isTrue();
      clock.advance(LEASE.dividedBy(3));
      assertThat(claims.renewed.tryAcquire(30, TimeUnit.SECONDS)).as("renewal " + (i + 1)).isTrue();
    }
    assertThat(held.valid()).as("a lease past its first one, renewed").isTrue();
    assertThat(store.claims().orElseThrow().tryClaim("k", "b", LEASE)).as("still held").isEmpty();
    Leases.Stats stats = leases.stats();
    assertThat(stats.renewals()).isEqualTo(3);
    assertThat(stats.held()).isEqualTo(1);
    assertThat(stats.lost()).isZero();
    assertThat(stats.maxLateness().isNegative()).isFalse();
    held.complete();
    assertThat(leases.stats().held()).isZero();
  }
}
