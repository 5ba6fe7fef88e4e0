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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MembersTest {
  private static final Duration LEASE = Duration.ofSeconds(3);
  private static final int KEYS = 2_000;

  private final TestClock clock = new TestClock();
  private final BreadcrumbStore store = InMemoryBreadcrumbStore.builder().clock(clock).build();
  private final WorkClaims claims = Leases.claimsOf(store, clock);
  private final List<Leases> leases = new ArrayList<>();
  private final List<Members> members = new ArrayList<>();

  @AfterEach
  void close() {
    members.forEach(Members::close);
    leases.forEach(Leases::close);
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
  void aMemberThatLeavesOrDiesHandsOnOnlyItsOwnShareAndALoneMemberIsFirstForEverything() {
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
      long until = System.nanoTime() + 30_000_000_000L;
      while (!claims.heldUntil(aKey).filter(t -> !t.isBefore(clock.instant().plus(LEASE))).isPresent()) {
        assertThat(System.nanoTime()).as("a's renewal").isLessThan(until);
        Thread.onSpinWait();
      }
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
}
