package dev.rcrt.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.WorkClaims;
import dev.rcrt.core.spi.Leases;
import dev.rcrt.core.spi.Members;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MembersTest {
  private static final Duration LEASE = Duration.ofSeconds(3);
  private static final int KEYS = 2_000;

  private final TestClock clock = new TestClock();
  private final BreadcrumbStore store = InMemoryBreadcrumbStore.builder().clock(clock).build();
  /** Notified after each renewal of claims, for a test that waits for one. */
  private final Object renewed = new Object();
  private final WorkClaims claims = new ForwardingWorkClaims(Leases.claimsOf(store, clock)) {
    @Override
    public Optional<Claim> renew(Claim claim, Duration lease) {
      try {
        return super.renew(claim, lease);
      } finally {
        renewed();
      }
    }

    @Override
    public Map<String, Claim> renewAll(List<Claim> held, Duration lease) {
      try {
        return super.renewAll(held, lease);
      } finally {
        renewed();
      }
    }
  };
  private final List<Leases> leases = new ArrayList<>();
  private final List<Members> members = new ArrayList<>();

  @AfterEach
  void close() {
    members.forEach(Members::close);
    leases.forEach(Leases::close);
  }

  private void renewed() {
    synchronized (renewed) {
      renewed.notifyAll();
    }
  }

  /** Waits, woken by each renewal, until {@code key} is held for a whole lease from the clock's now; whether it is. */
  private boolean awaitHeldForALease(String key) throws InterruptedException {
    return MonitorWaits.until(renewed, () -> claims.heldUntil(key).filter(t -> !t.isBefore(clock.instant().plus(LEASE))).isPresent(),
        Duration.ofSeconds(60));
  }

  private Members member(String owner) {
    Leases l = new Leases("members-test", clock);
    leases.add(l);
    Members m = new Members(store, claims, l, "run:agent", owner, LEASE, clock);
    members.add(m);
    m.first("join"); // joins the group and reads it
    return m;
  }

  /** Which member each key is offered to first, asking each of {@code fleet}; fails unless exactly one says so. */
  private static Map<String, String> firstOf(Map<String, Members> fleet) {
    Map<String, String> chosen = new HashMap<>();
    for (int k = 0; k < KEYS; k++) {
      String key = "run:" + k;
      List<String> first = fleet.entrySet().stream().filter(e -> e.getValue().first(key)).map(Map.Entry::getKey).toList();
      assertThat(first).as("members first for " + key).hasSize(1);
      chosen.put(key, first.get(0));
    }
    return chosen;
  }

  @Test
  void eachKeyIsOfferedFirstToExactlyOneLiveMemberAndTheSharesAreEven() {
    Map<String, Members> fleet = new HashMap<>();
    for (String owner : List.of("agent:a:1@h:x1", "agent:a:2@h:x2", "agent:a:3@h:x3", "agent:a:4@h:x4")) {
      fleet.put(owner, member(owner));
    }
    clock.advance(LEASE.dividedBy(3)); // each reads the members again, all four of them now
    Map<String, String> chosen = firstOf(fleet);

    Map<String, Long> shares = new HashMap<>();
    chosen.values().forEach(o -> shares.merge(o, 1L, Long::sum));
    assertThat(shares).hasSize(4);
    assertThat(shares.values()).allSatisfy(n -> assertThat(n).as("a share of " + KEYS + " keys among 4").isBetween(KEYS / 4 - 200L, KEYS / 4 + 200L));
  }

  @Test
  void aMemberThatLeavesOrDiesHandsOnOnlyItsOwnShareAndALoneMemberIsFirstForEverything() throws Exception {
    Map<String, Members> fleet = new HashMap<>();
    for (String owner : List.of("a", "b", "c")) {
      fleet.put(owner, member(owner));
    }
    clock.advance(LEASE.dividedBy(3));
    Map<String, String> before = firstOf(fleet);

    fleet.remove("c").close(); // gives its member claim back
    clock.advance(LEASE.dividedBy(3)); // the others read the members again
    Map<String, String> after = firstOf(fleet);
    before.forEach((key, owner) -> {
      if (!owner.equals("c")) {
        assertThat(after.get(key)).as("a key of a member that stayed does not move").isEqualTo(owner);
      }
    });
    assertThat(after.values()).containsOnly("a", "b");

    leases.get(1).close(); // b's process dies: its member claim is no longer renewed and runs out
    String aKey = WorkClaims.MEMBER_PREFIX + "run:agent:a";
    for (int i = 0; i < 4; i++) { // a lease and more, each of a's renewals waited for as it comes due (on the renewal thread)
      clock.advance(LEASE.dividedBy(3));
      assertThat(awaitHeldForALease(aKey)).as("a's renewal").isTrue();
    }
    assertThat(claims.holders(WorkClaims.MEMBER_PREFIX + "run:agent:")).extracting(WorkClaims.Claim::owner).containsExactly("a");
    Members a = fleet.get("a");
    for (int k = 0; k < KEYS; k++) {
      assertThat(a.first("run:" + k)).as("alone").isTrue();
    }
  }

  @Test
  void aMemberThatCannotReadTheMembersIsFirstForEveryKey() {
    member("a");
    Leases l = new Leases("members-test", clock);
    leases.add(l);
    WorkClaims failing = new ForwardingWorkClaims(claims) {
      @Override
      public List<Claim> holders(String keyPrefix) {
        throw new IllegalStateException("the store is unreachable");
      }
    };
    Members b = new Members(store, failing, l, "run:agent", "b", LEASE, clock);
    members.add(b);
    for (int k = 0; k < 200; k++) {
      assertThat(b.first("run:" + k)).isTrue();
    }
  }

  @Test
  void aThreadThatFindsTheViewStaleWhileAnotherReadsItWaitsForThatReadRatherThanUseTheStaleView() throws Exception {
    // a's first view, taken as it joined, knows a alone: used once stale, it made a first for every key (a second claim on
    // work b was offered); FleetTest saw it under load
    java.util.concurrent.CountDownLatch reading = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();
    WorkClaims slow = new ForwardingWorkClaims(claims) {
      @Override
      public List<Claim> holders(String keyPrefix) {
        if (reads.incrementAndGet() == 2) { // a's read once stale: held until the test lets it go
          reading.countDown();
          try {
            release.await(60, java.util.concurrent.TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
        return delegate.holders(keyPrefix);
      }
    };
    Leases l = new Leases("members-test", clock);
    leases.add(l);
    Members a = new Members(store, slow, l, "run:agent", "a", LEASE, clock);
    members.add(a);
    a.join(); // its view: a alone
    Members b = member("b");
    clock.advance(LEASE.dividedBy(3)); // a's view is stale now
    String bsKey = java.util.stream.IntStream.range(0, KEYS).mapToObj(k -> "run:" + k).filter(b::first).findFirst().orElseThrow();

    java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(2);
    try {
      java.util.concurrent.Future<Boolean> reader = threads.submit(() -> a.first("run:read"));
      assertThat(reading.await(60, java.util.concurrent.TimeUnit.SECONDS)).as("a reads the members again").isTrue();
      java.util.concurrent.atomic.AtomicReference<Thread> second = new java.util.concurrent.atomic.AtomicReference<>();
      java.util.concurrent.Future<Boolean> other = threads.submit(() -> {
        second.set(Thread.currentThread());
        return a.first(bsKey);
      });
      long until = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
      while (!other.isDone() && (second.get() == null || second.get().getState() != Thread.State.BLOCKED)) { // it answered, or it waits
        assertThat(System.nanoTime()).as("the second thread answers or waits").isLessThan(until);
        Thread.onSpinWait();
      }
      release.countDown();
      assertThat(reader.get(60, java.util.concurrent.TimeUnit.SECONDS)).isNotNull();
      assertThat(other.get(60, java.util.concurrent.TimeUnit.SECONDS)).as("a is not first for a key b is offered first").isFalse();
      assertThat(reads).as("one read for both threads").hasValue(2);
    } finally {
      release.countDown();
      threads.shutdownNow();
    }
  }
}
