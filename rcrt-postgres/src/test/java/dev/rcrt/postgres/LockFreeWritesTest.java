package dev.rcrt.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbUpdate;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.core.spi.Records;
import dev.rcrt.testing.RecordedEvents;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Writes without a store-wide lock: a write held up inside its transaction keeps no other record's
 * writer waiting, and an event whose transaction commits after later ones is delivered, in its
 * place, rather than skipped.
 */
class LockFreeWritesTest {
  private static final Duration WITHIN = Duration.ofSeconds(60);

  private static PostgresBreadcrumbStore open(String schema) {
    return PostgresBreadcrumbStore.builder(TestPostgres.dataSource()).schema(schema).pollInterval(Duration.ofMillis(100)).build();
  }

  @Test
  void aWriteStuckInItsTransactionKeepsNoOtherRecordsWriterWaiting() throws Exception {
    String schema = TestPostgres.freshSchema();
    // a thread per write: the common pool may have a single thread on a small machine, and the stuck write would hold it
    java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(4);
    try (PostgresBreadcrumbStore store = open(schema); Connection blocker = TestPostgres.dataSource().getConnection()) {
      Breadcrumb a = store.create(BreadcrumbCreate.builder("note.v1", "a").build());
      Breadcrumb b = store.create(BreadcrumbCreate.builder("note.v1", "b").build());
      blocker.setAutoCommit(false);
      try (PreparedStatement lock = blocker.prepareStatement("SELECT 1 FROM " + schema + ".breadcrumbs WHERE id = ? FOR UPDATE")) {
        lock.setString(1, a.id());
        lock.executeQuery().close(); // a's row is held: the store's update of a is stuck inside its transaction
      }
      CompletableFuture<Breadcrumb> stuck = CompletableFuture.supplyAsync(() -> store.update(a.id(), 1, BreadcrumbUpdate.ofContext(RcrtJson.parse("{\"v\":2}"))), threads);
      awaitBlockedBy(blocker);
      assertThat(stuck).as("a's update waits for the row").isNotDone();

      // with one lock for every writer, these would wait behind a's update until the blocker let go
      CompletableFuture<Breadcrumb> other =
          CompletableFuture.supplyAsync(() -> store.update(b.id(), 1, BreadcrumbUpdate.ofContext(RcrtJson.parse("{\"v\":2}"))), threads);
      CompletableFuture<Breadcrumb> fresh = CompletableFuture.supplyAsync(() -> store.create(BreadcrumbCreate.builder("note.v1", "c").build()), threads);
      CompletableFuture<Boolean> gone = CompletableFuture.supplyAsync(() -> store.delete(fresh.join().id()), threads);
      assertThat(other.get(10, TimeUnit.SECONDS).version()).isEqualTo(2);
      assertThat(gone.get(10, TimeUnit.SECONDS)).isTrue();
      assertThat(stuck).isNotDone();

      blocker.rollback();
      assertThat(stuck.get(10, TimeUnit.SECONDS).version()).isEqualTo(2);
    } finally {
      threads.shutdownNow();
    }
  }

  /**
   * Waits until PostgreSQL reports a session waiting for a lock that {@code holder}'s session holds
   * (the store's update, inside its transaction). PostgreSQL signals no such moment, so this looks
   * every 10 ms, for at most a minute.
   */
  private static void awaitBlockedBy(Connection holder) throws Exception {
    int pid;
    try (java.sql.Statement s = holder.createStatement(); java.sql.ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      pid = rs.getInt(1);
    }
    long deadline = System.nanoTime() + WITHIN.toNanos();
    try (Connection look = TestPostgres.dataSource().getConnection();
        PreparedStatement q = look.prepareStatement("SELECT count(*) FROM pg_stat_activity WHERE ? = ANY(pg_blocking_pids(pid))")) {
      q.setInt(1, pid);
      while (true) {
        try (java.sql.ResultSet rs = q.executeQuery()) {
          rs.next();
          if (rs.getInt(1) > 0) {
            return;
          }
        }
        assertThat(System.nanoTime()).as("a session waits for the held row").isLessThan(deadline);
        Thread.sleep(10);
      }
    }
  }

  @Test
  void anEventWhoseTransactionCommitsLateIsDeliveredInItsPlaceNotSkipped() throws Exception {
    String schema = TestPostgres.freshSchema();
    java.util.concurrent.Semaphore reads = new java.util.concurrent.Semaphore(0);
    try (PostgresBreadcrumbStore writer = open(schema);
        PostgresBreadcrumbStore reader = PostgresBreadcrumbStore.builder(countingEventReads(TestPostgres.dataSource(), reads))
            .schema(schema).pollInterval(Duration.ofMillis(100)).build();
        Connection late = TestPostgres.dataSource().getConnection()) {
      RecordedEvents seen = new RecordedEvents();
      try (Subscription ignored = reader.subscribe(Selector.schema("note.v1"), seen)) {
        writer.create(BreadcrumbCreate.builder("note.v1", "first").build());
        assertThat(seen.awaitCount(1, WITHIN)).isTrue();

        // a writer that took its transaction id and sequence number first, and has not committed yet; as every writer of
        // this store, it took the writers' lock before its transaction id
        late.setAutoCommit(false);
        try (java.sql.Statement s = late.createStatement()) {
          s.execute("SELECT " + new dev.rcrt.postgres.internal.Tables(schema).writerLock());
        }
        Breadcrumb record = Records.created(BreadcrumbCreate.builder("note.v1", "late").build(), "late-one", Instant.now());
        try (PreparedStatement q = late.prepareStatement("INSERT INTO " + schema + ".breadcrumb_events (seq, type, id, record)"
            + " VALUES (nextval('" + schema + ".write_seq'), 'CREATED', ?, ?::json)")) {
          q.setString(1, record.id());
          q.setString(2, RcrtJson.write(record));
          q.executeUpdate();
        }
        writer.create(BreadcrumbCreate.builder("note.v1", "after").build()); // committed with a larger number, earlier
        reads.drainPermits();
        // three reads of the event log begun after "after" committed: a reader that took it would have passed the late event's number
        assertThat(reads.tryAcquire(3, WITHIN.toSeconds(), TimeUnit.SECONDS)).as("the reader read the event log again").isTrue();
        assertThat(seen.events()).as("held back until the older transaction ends").hasSize(1);

        late.commit();
        assertThat(seen.awaitCount(3, WITHIN)).isTrue();
        writer.create(BreadcrumbCreate.builder("note.v1", "sentinel").build());
        assertThat(seen.awaitCount(4, WITHIN)).isTrue();
      }
      assertThat(seen.titles()).containsExactly("first", "late", "after", "sentinel");
    }
  }

  /**
   * {@code pool}, releasing a permit of {@code reads} each time a store on it begins a read of the
   * event log (prepares the statement that reads events below the horizon).
   */
  private static javax.sql.DataSource countingEventReads(javax.sql.DataSource pool, java.util.concurrent.Semaphore reads) {
    return proxy(javax.sql.DataSource.class, pool, (method, args, result) -> method.getName().equals("getConnection")
        ? proxy(Connection.class, (Connection) result, (m, a, r) -> {
          if (m.getName().equals("prepareStatement") && a[0] instanceof String sql && sql.contains("horizon")) {
            reads.release();
          }
          return r;
        })
        : result);
  }

  /** What a call on the proxy returns, given the call and what {@code target} returned. */
  private interface After {
    Object apply(java.lang.reflect.Method method, Object[] args, Object result);
  }

  private static <T> T proxy(Class<T> type, T target, After after) {
    return type.cast(java.lang.reflect.Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (p, method, args) -> {
      try {
        return after.apply(method, args, method.invoke(target, args));
      } catch (java.lang.reflect.InvocationTargetException e) {
        throw e.getCause();
      }
    }));
  }
}
