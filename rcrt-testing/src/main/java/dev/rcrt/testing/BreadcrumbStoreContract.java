package dev.rcrt.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbEvent;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.BreadcrumbUpdate;
import dev.rcrt.core.ClaimLostException;
import dev.rcrt.core.ConflictException;
import dev.rcrt.core.ContextMatch;
import dev.rcrt.core.MatchOp;
import dev.rcrt.core.NotFoundException;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.core.TtlType;
import dev.rcrt.core.ValidationException;
import dev.rcrt.core.WorkClaims;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link BreadcrumbStore} must have. Extend it in a test of your store and
 * implement {@link #newStore(Clock)}; each test gets a fresh, empty store on a {@link TestClock}
 * standing at {@link #START}, which TTL tests move forward.
 *
 * <p>Subscription tests wait at most {@link #eventWaitSeconds()} for an event to arrive; that bound
 * only keeps a broken store from hanging the build, it is not a speed assertion.
 */
public abstract class BreadcrumbStoreContract {

  /** Where each test's clock starts. */
  public static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

  /** A new, empty store for one test, telling time by {@code clock}. */
  protected abstract BreadcrumbStore newStore(Clock clock);

  /** How long a subscription test waits for an expected event before failing; default 10 s. */
  protected long eventWaitSeconds() {
    return 10;
  }

  /**
   * Why this store's subscribers receive no {@code DELETED} events (its backend sends none, as an
   * RCRT server's event stream), or null, the default, when they do. With a reason, the
   * subscription test checks creates and updates and is then reported skipped with it.
   */
  protected @Nullable String noDeleteEvents() {
    return null;
  }

  /**
   * Why {@link BreadcrumbStore#purgeExpired()} removes nothing here (the backend expires records
   * itself), or null, the default. With a reason, the purge test is skipped with it.
   */
  protected @Nullable String noPurge() {
    return null;
  }

  /**
   * Why reads here are not counted as the caller's {@code get}s for a {@code usage} TTL (a server
   * that counts its own reads, such as the read-back after a create), or null, the default. With a
   * reason, the usage and hybrid TTL tests are skipped with it.
   */
  protected @Nullable String noUsageCount() {
    return null;
  }

  /** The store under test, fresh for each test. */
  protected BreadcrumbStore store;
  /** The clock the store tells time by; tests move it. */
  protected TestClock clock;

  @BeforeEach
  void freshStore() {
    clock = new TestClock(START);
    store = newStore(clock);
  }

  /** {@code text} parsed as a JSON object. */
  protected static ObjectNode json(String text) {
    return (ObjectNode) RcrtJson.parse(text);
  }

  /** Creates a record with the schema, title, context JSON and tags. */
  protected Breadcrumb put(String schema, String title, String context, String... tags) {
    return store.create(BreadcrumbCreate.builder(schema, title).context(json(context)).tags(tags).build());
  }

  // ---------------------------------------------------------------- create / get

  @Test
  void createAssignsVersionOneChecksumSizeAndTimestamps() throws Exception {
    Breadcrumb created = put("note.v1", "A note", "{\"text\":\"hello\",\"n\":1}", "a");

    String compact = "{\"text\":\"hello\",\"n\":1}";
    byte[] hash = MessageDigest.getInstance("SHA-256").digest(compact.getBytes(StandardCharsets.UTF_8));
    assertThat(created.id()).isNotBlank();
    assertThat(created.version()).isEqualTo(1);
    assertThat(created.checksum()).isEqualTo("sha256:" + HexFormat.of().formatHex(hash));
    assertThat(created.sizeBytes()).isEqualTo(compact.length());
    assertThat(created.updatedAt()).isEqualTo(created.createdAt());
    assertThat(store.get(created.id())).contains(created);
  }

  @Test
  void createKeepsAnIdTheCallerGives() {
    Breadcrumb created =
        store.create(BreadcrumbCreate.builder("tool.definition.v1", "Random").id("tool-def-random").build());
    assertThat(created.id()).isEqualTo("tool-def-random");
    assertThat(store.get("tool-def-random")).isPresent();
  }

  @Test
  void createWithAnIdThatExistsIsAConflictAndKeepsTheOriginal() {
    store.create(BreadcrumbCreate.builder("a.v1", "First").id("same").build());
    assertThatThrownBy(() -> store.create(BreadcrumbCreate.builder("a.v1", "Second").id("same").build()))
        .isInstanceOf(ConflictException.class);
    assertThat(store.get("same").orElseThrow().title()).isEqualTo("First");
  }

  /** Trust decisions read the writer of the current version, so a store must keep both writer fields. */
  @Test
  void theWriterOfTheFirstAndOfTheCurrentVersionAreKept() {
    Breadcrumb created = store.create(BreadcrumbCreate.builder("tool.v1", "T").createdBy("host").build());
    Breadcrumb updated =
        store.update(created.id(), 1, BreadcrumbUpdate.ofContext(RcrtJson.object().put("n", 2)).withUpdatedBy("tool:helper"));
    assertThat(updated.createdBy()).isEqualTo("host");
    assertThat(updated.updatedBy()).isEqualTo("tool:helper");
    assertThat(store.get(created.id()).orElseThrow().updatedBy()).isEqualTo("tool:helper");
    assertThat(dev.rcrt.core.Principal.writerOf(store.get(created.id()).orElseThrow())).isEqualTo(dev.rcrt.core.Principal.tool("helper"));
  }

  @Test
  void getOfAnUnknownIdIsEmpty() {
    assertThat(store.get("nope")).isEmpty();
  }

  @Test
  void aCallersLaterChangeToItsContextTreeDoesNotReachTheStore() {
    ObjectNode context = json("{\"v\":1}");
    Breadcrumb created = store.create(BreadcrumbCreate.builder("a.v1", "t").context(context).build());
    context.put("v", 2);
    assertThat(store.get(created.id()).orElseThrow().context().get("v").asInt()).isEqualTo(1);
  }

  // ---------------------------------------------------------------- update / history / delete

  @Test
  void updateIncrementsTheVersionAndRecordsHistory() {
    Breadcrumb v1 = put("a.v1", "t", "{\"n\":1}");
    Breadcrumb v2 = store.update(v1.id(), 1, BreadcrumbUpdate.ofContext(json("{\"n\":2}")));
    Breadcrumb v3 = store.update(v1.id(), 2, BreadcrumbUpdate.ofContext(json("{\"n\":3}")));

    assertThat(v2.version()).isEqualTo(2);
    assertThat(v3.version()).isEqualTo(3);
    assertThat(v3.context().get("n").asInt()).isEqualTo(3);
    assertThat(v3.checksum()).isNotEqualTo(v1.checksum());
    assertThat(v3.createdAt()).isEqualTo(v1.createdAt());
    assertThat(store.history(v1.id())).extracting(Breadcrumb::version).containsExactly(1L, 2L, 3L);
    assertThat(store.history(v1.id()).get(0).context().get("n").asInt()).isEqualTo(1);
  }

  @Test
  void updateWithAStaleVersionIsAConflictAndWritesNothing() {
    Breadcrumb v1 = put("a.v1", "t", "{\"n\":1}");
    store.update(v1.id(), 1, BreadcrumbUpdate.ofContext(json("{\"n\":2}")));

    assertThatThrownBy(() -> store.update(v1.id(), 1, BreadcrumbUpdate.ofContext(json("{\"n\":99}"))))
        .isInstanceOfSatisfying(
            ConflictException.class,
            e -> {
              assertThat(e.expectedVersion()).isEqualTo(1);
              assertThat(e.actualVersion()).isEqualTo(2);
              assertThat(e.code()).isEqualTo("conflict");
            });
    Breadcrumb now = store.get(v1.id()).orElseThrow();
    assertThat(now.version()).isEqualTo(2);
    assertThat(now.context().get("n").asInt()).isEqualTo(2);
  }

  @Test
  void updateOfAnUnknownIdIsNotFound() {
    assertThatThrownBy(() -> store.update("missing", 1, BreadcrumbUpdate.ofContext(json("{}"))))
        .isInstanceOf(NotFoundException.class)
        .hasMessageContaining("missing");
  }

  @Test
  void updateWithoutAContextKeepsContextAndChecksum() {
    Breadcrumb v1 = put("a.v1", "t", "{\"n\":1}", "x");
    Breadcrumb v2 =
        store.update(v1.id(), 1, BreadcrumbUpdate.ofContext(v1.context()).withTags(List.of("y")));
    assertThat(v2.tags()).containsExactly("y");
    assertThat(v2.checksum()).isEqualTo(v1.checksum());
  }

  @Test
  void deleteRemovesTheBreadcrumbAndReportsWhetherItExisted() {
    Breadcrumb created = put("a.v1", "t", "{}", "gone");
    assertThat(store.delete(created.id())).isTrue();
    assertThat(store.get(created.id())).isEmpty();
    assertThat(store.search(Selector.allTags("gone"), 10, 0)).isEmpty();
    assertThat(store.delete(created.id())).isFalse();
  }

  // ---------------------------------------------------------------- search

  @Test
  void searchReturnsNewestFirstWithLimitAndOffset() {
    for (int i = 0; i < 5; i++) {
      put("a.v1", "n" + i, "{\"i\":" + i + "}", "page");
    }
    assertThat(store.search(Selector.allTags("page"), 2, 0)).extracting(Breadcrumb::title).containsExactly("n4", "n3");
    assertThat(store.search(Selector.allTags("page"), 2, 2)).extracting(Breadcrumb::title).containsExactly("n2", "n1");
    assertThat(store.search(Selector.allTags("page"), 10, 4)).extracting(Breadcrumb::title).containsExactly("n0");
  }

  @Test
  void anUpdatedBreadcrumbMovesToTheFrontOfSearchResults() {
    Breadcrumb old = put("a.v1", "old", "{}", "t");
    put("a.v1", "new", "{}", "t");
    store.update(old.id(), 1, BreadcrumbUpdate.ofContext(json("{\"touched\":true}")));
    assertThat(store.search(Selector.allTags("t"), 10, 0)).extracting(Breadcrumb::title).containsExactly("old", "new");
  }

  @Test
  void searchBySchemaAnyTagsAndAllTags() {
    put("a.v1", "a-xy", "{}", "x", "y");
    put("a.v1", "a-x", "{}", "x");
    put("b.v1", "b-y", "{}", "y");

    assertThat(titles(Selector.schema("a.v1"))).containsExactlyInAnyOrder("a-xy", "a-x");
    assertThat(titles(Selector.allTags("x", "y"))).containsExactly("a-xy");
    assertThat(titles(Selector.anyTags("x", "y"))).containsExactlyInAnyOrder("a-xy", "a-x", "b-y");
    assertThat(titles(Selector.schema("b.v1").withAllTags("y"))).containsExactly("b-y");
    assertThat(titles(Selector.schema("c.v1"))).isEmpty();
    assertThat(titles(Selector.all())).hasSize(3);
  }

  @Test
  void searchFollowsTagChangesMadeByUpdates() {
    Breadcrumb b = put("a.v1", "t", "{}", "before");
    store.update(b.id(), 1, BreadcrumbUpdate.ofContext(b.context()).withTags(List.of("after")));
    assertThat(titles(Selector.allTags("before"))).isEmpty();
    assertThat(titles(Selector.allTags("after"))).containsExactly("t");
  }

  @Test
  void contextMatchEveryOperator() {
    put("m.v1", "one", "{\"n\":1,\"s\":\"apple pie\",\"arr\":[\"a\",\"b\"],\"o\":{\"k\":\"v\"}}");
    put("m.v1", "two", "{\"n\":2.5,\"s\":\"banana\",\"arr\":[\"c\"],\"o\":{\"k\":\"w\"}}");
    put("m.v1", "none", "{\"other\":true}");

    assertThat(match("$.n", MatchOp.EQ, 1.0)).containsExactly("one");
    assertThat(match("$.o.k", MatchOp.EQ, "w")).containsExactly("two");
    assertThat(match("$.s", MatchOp.NE, "banana")).containsExactlyInAnyOrder("one", "none");
    assertThat(match("$.n", MatchOp.GT, 1)).containsExactly("two");
    assertThat(match("$.n", MatchOp.GTE, 1)).containsExactlyInAnyOrder("one", "two");
    assertThat(match("$.n", MatchOp.LT, 2.5)).containsExactly("one");
    assertThat(match("$.n", MatchOp.LTE, 2.5)).containsExactlyInAnyOrder("one", "two");
    assertThat(match("$.s", MatchOp.GT, "b")).containsExactly("two");
    assertThat(match("$.s", MatchOp.CONTAINS, "pie")).containsExactly("one");
    assertThat(match("$.arr", MatchOp.CONTAINS, "c")).containsExactly("two");
    assertThat(match("$.arr", MatchOp.CONTAINS_ANY, List.of("b", "z"))).containsExactly("one");
    assertThat(match("$.n", MatchOp.EXISTS, true)).containsExactlyInAnyOrder("one", "two");
    assertThat(match("$.n", MatchOp.EXISTS, false)).containsExactly("none");
    assertThat(match("$.arr[0]", MatchOp.EQ, "c")).containsExactly("two");
  }

  @Test
  void comparisonsBetweenDifferentTypesNeverMatch() {
    put("m.v1", "text", "{\"n\":\"10\"}");
    assertThat(match("$.n", MatchOp.GT, 5)).isEmpty();
    assertThat(match("$.n", MatchOp.LT, 50)).isEmpty();
    assertThat(match("$.n", MatchOp.EQ, 10)).isEmpty();
  }

  // ---------------------------------------------------------------- subscriptions

  @Test
  void subscribersReceiveCreateUpdateAndDeleteInCommitOrder() throws Exception {
    BlockingQueue<BreadcrumbEvent> events = new LinkedBlockingQueue<>();
    try (Subscription ignored = store.subscribe(Selector.schema("watched.v1"), events::add)) {
      Breadcrumb b = put("watched.v1", "w", "{\"n\":1}");
      put("other.v1", "o", "{}");
      store.update(b.id(), 1, BreadcrumbUpdate.ofContext(json("{\"n\":2}")));
      store.delete(b.id());

      assertThat(next(events).type()).isEqualTo(BreadcrumbEvent.Type.CREATED);
      BreadcrumbEvent updated = next(events);
      assertThat(updated.type()).isEqualTo(BreadcrumbEvent.Type.UPDATED);
      assertThat(updated.breadcrumb().version()).isEqualTo(2);
      org.junit.jupiter.api.Assumptions.assumeTrue(noDeleteEvents() == null, noDeleteEvents());
      BreadcrumbEvent deleted = next(events);
      assertThat(deleted.type()).isEqualTo(BreadcrumbEvent.Type.DELETED);
      assertThat(deleted.breadcrumb().id()).isEqualTo(b.id());
    }
    assertThat(events).isEmpty();
  }

  @Test
  void aClosedSubscriptionReceivesNothingMore() throws Exception {
    BlockingQueue<BreadcrumbEvent> events = new LinkedBlockingQueue<>();
    Subscription subscription = store.subscribe(Selector.allTags("t"), events::add);
    put("a.v1", "first", "{}", "t");
    assertThat(next(events).breadcrumb().title()).isEqualTo("first");
    subscription.close();
    subscription.close();

    BlockingQueue<BreadcrumbEvent> marker = new LinkedBlockingQueue<>();
    try (Subscription probe = store.subscribe(Selector.allTags("t"), marker::add)) {
      put("a.v1", "second", "{}", "t");
      assertThat(next(marker).breadcrumb().title()).isEqualTo("second");
    }
    assertThat(events).isEmpty();
  }

  @Test
  void aListenerThatThrowsKeepsItsSubscription() throws Exception {
    BlockingQueue<String> seen = new LinkedBlockingQueue<>();
    try (Subscription ignored =
        store.subscribe(
            Selector.all(),
            e -> {
              seen.add(e.breadcrumb().title());
              throw new IllegalStateException("listener bug");
            })) {
      put("a.v1", "one", "{}");
      put("a.v1", "two", "{}");
      assertThat(seen.poll(eventWaitSeconds(), TimeUnit.SECONDS)).isEqualTo("one");
      assertThat(seen.poll(eventWaitSeconds(), TimeUnit.SECONDS)).isEqualTo("two");
    }
  }

  @Test
  void eventsOfOneSubscriptionArriveOneAtATimeInOrderUnderConcurrentWrites() throws Exception {
    int writers = 4;
    int each = 50;
    List<Long> seen = java.util.Collections.synchronizedList(new ArrayList<>());
    CountDownLatch all = new CountDownLatch(writers * each);
    java.util.concurrent.atomic.AtomicInteger inside = new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicBoolean overlapped = new java.util.concurrent.atomic.AtomicBoolean();
    Breadcrumb counter = put("counter.v1", "c", "{\"n\":0}");
    try (Subscription ignored =
        store.subscribe(
            Selector.schema("counter.v1"),
            e -> {
              if (inside.incrementAndGet() > 1) {
                overlapped.set(true);
              }
              seen.add(e.breadcrumb().version());
              inside.decrementAndGet();
              all.countDown();
            })) {
      incrementConcurrently(counter.id(), writers, each);
      assertThat(all.await(eventWaitSeconds(), TimeUnit.SECONDS)).isTrue();
    }
    assertThat(overlapped).isFalse();
    assertThat(seen).isSorted().hasSize(writers * each);
  }

  // ---------------------------------------------------------------- concurrency

  @Test
  void concurrentWritersRetryingOnConflictLoseNoUpdate() throws Exception {
    Breadcrumb counter = put("counter.v1", "c", "{\"n\":0}");
    incrementConcurrently(counter.id(), 4, 100);
    Breadcrumb end = store.get(counter.id()).orElseThrow();
    assertThat(end.context().get("n").asInt()).isEqualTo(400);
    assertThat(end.version()).isEqualTo(401);
    assertThat(store.history(counter.id())).hasSize(401);
  }

  // ---------------------------------------------------------------- TTL, idempotency, limits

  private Breadcrumb withTtl(String title, @Nullable Instant ttl, TtlType type, @Nullable String config) {
    return store.create(BreadcrumbCreate.builder("ttl.v1", title).tags("ttl")
        .ttl(ttl, type, config == null ? null : json(config)).build());
  }

  @Test
  void aDatetimeTtlHidesTheBreadcrumbFromGetSearchAndHistoryOnceItPasses() {
    Breadcrumb b = withTtl("soon", START.plusSeconds(60), TtlType.DATETIME, null);
    assertThat(store.get(b.id())).isPresent();
    clock.advance(Duration.ofSeconds(60));
    assertThat(store.get(b.id())).isEmpty();
    assertThat(store.search(Selector.allTags("ttl"), 10, 0)).isEmpty();
    assertThatThrownBy(() -> store.history(b.id())).isInstanceOf(NotFoundException.class);
    assertThatThrownBy(() -> store.update(b.id(), 1, BreadcrumbUpdate.ofContext(json("{}")))).isInstanceOf(NotFoundException.class);
  }

  @Test
  void aDurationTtlCountsFromCreation() {
    Breadcrumb b = withTtl("an hour", null, TtlType.DURATION, "{\"duration\":\"PT1H\"}");
    Breadcrumb s = withTtl("ninety seconds", null, TtlType.DURATION, "{\"duration\":90}");
    clock.advance(Duration.ofSeconds(89));
    assertThat(store.get(s.id())).isPresent();
    clock.advance(Duration.ofSeconds(1));
    assertThat(store.get(s.id())).isEmpty();
    assertThat(store.get(b.id())).isPresent();
    clock.advance(Duration.ofMinutes(59));
    assertThat(store.get(b.id())).isEmpty();
  }

  @Test
  void aUsageTtlAllowsMaxReadsGets() {
    org.junit.jupiter.api.Assumptions.assumeTrue(noUsageCount() == null, noUsageCount());
    Breadcrumb b = withTtl("twice", null, TtlType.USAGE, "{\"max_reads\":2}");
    assertThat(store.get(b.id())).isPresent();
    assertThat(store.search(Selector.allTags("ttl"), 10, 0)).as("search does not count as a read").hasSize(1);
    assertThat(store.get(b.id())).isPresent();
    assertThat(store.get(b.id())).isEmpty();
  }

  @Test
  void aHybridTtlEndsAtWhicheverComesFirst() {
    org.junit.jupiter.api.Assumptions.assumeTrue(noUsageCount() == null, noUsageCount());
    Breadcrumb byTime = withTtl("time", START.plusSeconds(10), TtlType.HYBRID, "{\"max_reads\":100}");
    Breadcrumb byReads = withTtl("reads", START.plusSeconds(1000), TtlType.HYBRID, "{\"max_reads\":1}");
    assertThat(store.get(byReads.id())).isPresent();
    assertThat(store.get(byReads.id())).isEmpty();
    assertThat(store.get(byTime.id())).isPresent();
    clock.advance(Duration.ofSeconds(10));
    assertThat(store.get(byTime.id())).isEmpty();
  }

  @Test
  void purgeRemovesExactlyTheExpiredBreadcrumbs() {
    org.junit.jupiter.api.Assumptions.assumeTrue(noPurge() == null, noPurge());
    withTtl("old", START.plusSeconds(5), TtlType.DATETIME, null);
    Breadcrumb keep = withTtl("young", START.plusSeconds(500), TtlType.DATETIME, null);
    put("a.v1", "forever", "{}", "ttl");
    clock.advance(Duration.ofSeconds(6));
    assertThat(store.purgeExpired()).isEqualTo(1);
    assertThat(store.purgeExpired()).isZero();
    assertThat(store.search(Selector.allTags("ttl"), 10, 0)).extracting(Breadcrumb::title).containsExactlyInAnyOrder("young", "forever");
    assertThat(store.get(keep.id())).isPresent();
  }

  @Test
  void aBreadcrumbCreatedAlreadyExpiredReachesNoSubscriber() throws Exception {
    BlockingQueue<BreadcrumbEvent> events = new LinkedBlockingQueue<>();
    try (Subscription ignored = store.subscribe(Selector.schema("ttl.v1"), events::add)) {
      withTtl("dead on arrival", START.minusSeconds(1), TtlType.DATETIME, null);
      withTtl("alive", START.plusSeconds(60), TtlType.DATETIME, null);
      assertThat(next(events).breadcrumb().title()).isEqualTo("alive");
    }
    assertThat(events).isEmpty();
  }

  @Test
  void aMalformedTtlIsRefusedWithTheField() {
    assertThatThrownBy(() -> withTtl("x", null, TtlType.USAGE, "{}"))
        .isInstanceOf(ValidationException.class).hasMessageContaining("ttl_config.max_reads");
    assertThatThrownBy(() -> withTtl("x", null, TtlType.DURATION, "{\"duration\":\"soon\"}"))
        .isInstanceOf(ValidationException.class).hasMessageContaining("ttl_config.duration");
  }

  @Test
  void aRepeatedIdempotencyKeyReturnsTheOriginalInsteadOfADuplicate() {
    BreadcrumbCreate once = BreadcrumbCreate.builder("a.v1", "payment").idempotencyKey("req-42").context(json("{\"n\":1}")).build();
    Breadcrumb first = store.create(once);
    Breadcrumb again = store.create(BreadcrumbCreate.builder("a.v1", "payment retry").idempotencyKey("req-42").build());
    assertThat(again.id()).isEqualTo(first.id());
    assertThat(again.title()).isEqualTo("payment");
    assertThat(store.search(Selector.schema("a.v1"), 10, 0)).hasSize(1);
    Breadcrumb other = store.create(BreadcrumbCreate.builder("a.v1", "other").idempotencyKey("req-43").build());
    assertThat(other.id()).isNotEqualTo(first.id());
  }

  @Test
  void aContextNestedTooDeeplyIsRefusedWithAClearError() {
    ObjectNode context = (ObjectNode) RcrtJson.object();
    com.fasterxml.jackson.databind.JsonNode node = RcrtJson.nodes().numberNode(1);
    for (int i = 0; i < 5_000; i++) {
      node = RcrtJson.object().set("a", node);
    }
    context.set("root", node);
    assertThatThrownBy(() -> store.create(BreadcrumbCreate.builder("a.v1", "deep").context(context).build()))
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("nests deeper than");
  }

  // ---------------------------------------------------------------- helpers

  private void incrementConcurrently(String id, int writers, int each) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < each; i++) {
                    while (true) {
                      Breadcrumb current = store.get(id).orElseThrow();
                      ObjectNode next = current.context().deepCopy();
                      next.put("n", current.context().get("n").asInt() + 1);
                      try {
                        store.update(id, current.version(), BreadcrumbUpdate.ofContext(next));
                        break;
                      } catch (ConflictException retry) {
                        // another writer won; re-read and try again
                      }
                    }
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * The fenced write ({@link BreadcrumbStore#create(BreadcrumbCreate, WorkClaims.Claim)}), for a
   * store with claims of its own: a current claim writes; a claim taken over, completed or run out
   * writes nothing and says {@code claim_lost}, also when its idempotency key was used.
   */
  @Test
  void aFencedWriteHappensOnlyWhileItsClaimIsCurrent() {
    if (store.claims().isEmpty()) {
      assertThatThrownBy(() -> store.create(BreadcrumbCreate.builder("f.v1", "x").build(),
          new WorkClaims.Claim("k", "a", 1, START.plusSeconds(60)))).isInstanceOf(UnsupportedOperationException.class);
      return;
    }
    WorkClaims claims = store.claims().orElseThrow();
    Duration lease = Duration.ofSeconds(10);
    WorkClaims.Claim first = claims.tryClaim("fence", "a", lease).orElseThrow();
    Breadcrumb written = store.create(BreadcrumbCreate.builder("f.v1", "by a").build(), first);
    assertThat(store.get(written.id())).isPresent();

    clock.advance(lease.plusSeconds(1)); // a stalls past its lease, nobody takes over: the token fences, so nobody else acted
    store.create(BreadcrumbCreate.builder("f.v1", "a, run out, not taken over").build(), first);
    WorkClaims.Claim second = claims.tryClaim("fence", "b", lease).orElseThrow();
    assertThatThrownBy(() -> store.create(BreadcrumbCreate.builder("f.v1", "a, taken over").idempotencyKey("once").build(), first))
        .isInstanceOf(ClaimLostException.class);
    Breadcrumb byB = store.create(BreadcrumbCreate.builder("f.v1", "by b").idempotencyKey("once").build(), second);
    assertThat(byB.title()).isEqualTo("by b");
    assertThatThrownBy(() -> store.create(BreadcrumbCreate.builder("f.v1", "a, taken over, new key").build(), first))
        .isInstanceOf(ClaimLostException.class).hasMessageContaining("fence");
    claims.complete(second);
    assertThatThrownBy(() -> store.create(BreadcrumbCreate.builder("f.v1", "b, completed").build(), second))
        .isInstanceOf(ClaimLostException.class);
    WorkClaims.Claim third = claims.tryClaim("fence-2", "c", lease).orElseThrow();
    claims.release(third);
    assertThatThrownBy(() -> store.create(BreadcrumbCreate.builder("f.v1", "c, given back").build(), third))
        .isInstanceOf(ClaimLostException.class);
    assertThat(titles(Selector.schema("f.v1"))).containsExactlyInAnyOrder("by a", "a, run out, not taken over", "by b");
  }

  private BreadcrumbEvent next(BlockingQueue<BreadcrumbEvent> events) throws InterruptedException {
    BreadcrumbEvent event = events.poll(eventWaitSeconds(), TimeUnit.SECONDS);
    assertThat(event).as("an event within %d s", eventWaitSeconds()).isNotNull();
    return event;
  }

  private List<String> titles(Selector selector) {
    return store.search(selector, 100, 0).stream().map(Breadcrumb::title).toList();
  }

  private List<String> match(String path, MatchOp op, Object value) {
    JsonNode v = RcrtJson.toTree(value);
    return titles(Selector.schema("m.v1").withMatch(new ContextMatch(path, op, v)));
  }
}
