package dev.rcrt.postgres;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbListener;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.BreadcrumbUpdate;
import dev.rcrt.core.ClaimLostException;
import dev.rcrt.core.ConflictException;
import dev.rcrt.core.EmbeddingPolicy;
import dev.rcrt.core.EmbeddingProvider;
import dev.rcrt.core.NotFoundException;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.core.VectorSearch;
import dev.rcrt.core.WorkClaims;
import dev.rcrt.core.spi.DaemonThreads;
import dev.rcrt.core.spi.EmbeddingIndexer;
import dev.rcrt.core.spi.Ids;
import dev.rcrt.core.spi.IndexedVectorSearch;
import dev.rcrt.core.spi.Records;
import dev.rcrt.postgres.internal.EventPump;
import dev.rcrt.postgres.internal.LuceneVectorIndex;
import dev.rcrt.postgres.internal.ParsedRecords;
import dev.rcrt.postgres.internal.PostgresClaims;
import dev.rcrt.postgres.internal.Rows;
import dev.rcrt.postgres.internal.Tables;
import dev.rcrt.postgres.internal.Transactions;
import dev.rcrt.postgres.internal.VectorFeed;
import dev.rcrt.postgres.internal.VectorSink;
import dev.rcrt.postgres.internal.VectorTable;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.jspecify.annotations.Nullable;

/**
 * A {@link BreadcrumbStore} on PostgreSQL 13 or newer, shared by every process that opens the same
 * database and schema: records persist, and subscriptions see the writes of every process.
 *
 * <p><b>Connections.</b> The host supplies the {@link DataSource} and owns pooling (HikariCP is
 * the usual choice); the store borrows a connection per call and returns it (and one for each
 * wake-up it sends after writes, see Events), and keeps one for
 * {@code LISTEN} from its first subscription until {@link #close()} (one per process: store objects
 * on the same data source and schema, with the same clock and event settings, share one event
 * reader, which the last of them to close stops), and one for lease renewals of
 * its {@link #claims()} from the first batch renewal ({@code WorkClaims.renewAll}) until {@link
 * #close()}, so that a busy pool never lets a live holder's lease run out: size the pool for both.
 * It never closes the data source. The store commits its own work: it puts every connection it
 * borrows in auto-commit, whatever the pool's default (a pool set to {@code autoCommit=false}, as
 * JPA applications often set it, works unchanged), and ends every transaction it begins. So give it
 * a data source of its own connections, not one that hands out the caller's transaction (Spring's
 * {@code TransactionAwareDataSourceProxy}): the store's first statement would commit that
 * transaction.
 *
 * <p><b>Schema.</b> The tables live in their own PostgreSQL schema ({@code rcrt} by default),
 * created and upgraded by Flyway migrations when the store is built, unless {@link
 * Builder#migrate(boolean)} is off, in which case {@link #migrate(DataSource, String)} does it.
 * The record is kept as RCRT wire JSON exactly as written (checksum included); {@code context} is
 * also kept as JSONB with a GIN index, tags as a text array with a GIN index, and B-tree indexes
 * serve schema and recency.
 *
 * <p><b>Writes</b> of different records never wait for one another: a create is one statement (the
 * row and its event); an update or delete is a transaction
 * that first takes a transaction-scoped advisory lock on that record alone. Every write takes the
 * next number of one sequence, which orders search results (newest first, by write order).
 * Versions are optimistic: a stale {@code expectedVersion} is a
 * {@link ConflictException} and nothing is written. TTLs are judged on the builder's clock, in the
 * database (a {@code usage} TTL counts reads with an atomic update).
 *
 * <p><b>Search</b> narrows with SQL (schema, tags, {@code eq} on plain context paths; see {@code
 * SqlSelector}) and confirms each row with {@link Selector#matches}, so its results and order are
 * exactly the in-memory store's.
 *
 * <p><b>Events</b> are rows of an append-only log, each with the id of the transaction that wrote
 * it, read by each process and woken by {@code NOTIFY}. The wake-up is not sent in the write's
 * transaction: PostgreSQL commits the transactions that notify one at a time, on the whole server,
 * each through its WAL flush, so writes that notified themselves could not share flushes. Each
 * process sends one {@code NOTIFY} after writes committed, for all of those that committed
 * meanwhile, in a transaction that does not wait for its flush; closing the store sends the last
 * one. A process killed between a write's commit and its wake-up leaves the others to find the
 * write at their next poll ({@link Builder#pollInterval(Duration)}). Without a store-wide lock, transactions
 * commit out of sequence order; a reader therefore takes only the events of transactions older than
 * the oldest one still in progress that can write this store's events, in transaction-id order: an
 * event whose transaction commits late is delivered, never skipped, and one record's events arrive
 * in its commit order (its writes hold its lock before they get a transaction id). Every write of
 * this store takes a shared advisory lock of its schema before it has a transaction id, and the
 * reader looks that lock up in {@code pg_locks}, so transactions of other databases, schemas or
 * applications on the same server (an open {@code psql} session, a long report) hold nothing back.
 * A writer of this store that stalls mid-transaction (a stopped process, a connection left idle in
 * transaction) holds back the events committed after it until it ends; after {@link
 * Builder#writerStallWarning(Duration)} (default 10 s) it is named in a WARN (transaction id, pid,
 * database, application, client) and {@link #eventDeliveryLag()} reports the wait. Every process
 * of a store must run this version or later: an older writer does not take the lock. A subscriber
 * whose connection drops reconnects and catches up from its last event, so nothing is lost or
 * delivered twice. Events are kept for {@link Builder#eventRetention(Duration)} (default 24 h): a
 * process that is away longer misses the older ones.
 *
 * <p><b>Search by meaning</b> ({@link Builder#embeddings}): a record is embedded after its write
 * commits, by the process that wrote it, on a background thread (the writer only queues its id),
 * and its unit vector is kept in {@code breadcrumb_vectors} with the version it came from: the
 * truth the fleet shares. Every process answers {@link #vectorSearch()} from its own in-memory index
 * (Lucene; exact below {@link Builder#exactVectorSearchBelow(int)} vectors, HNSW above), rebuilt
 * from the table on the store's first write or search by meaning (a process that only reads
 * otherwise never loads the index nor runs the model) and kept in step with it by polling every {@link
 * Builder#pollInterval(Duration)} (at once for this process's own vectors). A new or changed record
 * is therefore found by meaning once it is embedded and the index has read its row: the lag is the
 * embedding time plus at most one poll interval ({@link VectorSearch#pending()}, {@link
 * VectorSearch#awaitIndexed}). An update or delete takes the older vector out of each index when
 * its event arrives, and every result is read back from the table and dropped unless its current
 * version is the one the vector came from, so an old vector never answers. A failing provider
 * never fails a write: the record waits and is embedded when it works again, and records whose
 * writer stopped before embedding them are found by a sweep once a minute (one process at a time,
 * by a work claim, among the processes that write or search by meaning). No PostgreSQL extension is needed; pgvector could answer the same searches in
 * the database (see migration V4), but it is not packaged everywhere this store runs.
 *
 * <p>Thread-safe.
 */
public final class PostgresBreadcrumbStore implements BreadcrumbStore, AutoCloseable {
  private final DataSource dataSource;
  private final Tables tables;
  private final ParsedRecords parsed;
  private final Clock clock;
  private final Transactions tx;
  private final EventPump events;
  /** Where this store's listeners are called. */
  private final Executor eventExecutor;
  /** This store's subscriptions, closed with it (the pump may outlive it, shared with other store objects). */
  private final java.util.Set<Subscription> subscriptions = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
  private final PostgresClaims claims;
  private final Duration retention;
  private final @Nullable EmbeddingIndexer indexer;
  private final @Nullable VectorFeed feed;
  private final @Nullable LuceneVectorIndex vectors;
  private final @Nullable VectorSearch vectorSearch;
  private final @Nullable Subscription vectorEvents;

  private PostgresBreadcrumbStore(Builder b) {
    this.dataSource = b.dataSource;
    this.tables = new Tables(b.schema);
    this.clock = b.clock;
    this.tx = new Transactions(dataSource, tables);
    this.eventExecutor = b.eventExecutor != null ? b.eventExecutor : DaemonThreads.pool(0, "rcrt-store-events");
    if (b.migrate) {
      migrate(dataSource, b.schema);
    }
    this.events = EventPump.acquire(dataSource, tables, clock, b.pollInterval, b.eventRetention, b.writerStallWarning);
    this.parsed = events.parsed();
    this.claims = new PostgresClaims(tx, dataSource, tables, clock);
    this.retention = b.eventRetention;
    if (b.embeddings != null) {
      VectorTable table = new VectorTable(tables);
      LuceneVectorIndex index = new LuceneVectorIndex(b.exactBelow);
      VectorFeed[] later = new VectorFeed[1];
      EmbeddingIndexer embedder =
          new EmbeddingIndexer("postgres/" + b.schema, b.embeddings, b.policy, id -> Optional.ofNullable(currentOf(List.of(id)).get(id)),
              new VectorSink(tx, table, b.embeddings.model(), () -> later[0].wake()));
      this.vectors = index;
      this.indexer = embedder;
      this.feed = later[0] = new VectorFeed(tx, tables, table, index, b.embeddings.model(), embedder, claims, "store:" + Ids.random(), b.pollInterval);
      this.vectorEvents = subscribe(Selector.all(), feed::onEvent);
      this.vectorSearch = new IndexedVectorSearch(embedder, index, this::currentOf, feed);
    } else {
      this.vectors = null;
      this.indexer = null;
      this.feed = null;
      this.vectorEvents = null;
      this.vectorSearch = null;
    }
  }

  /** A builder over {@code dataSource}; the host keeps owning it. */
  public static Builder builder(DataSource dataSource) {
    return new Builder(dataSource);
  }

  /**
   * Creates or upgrades the store's tables in {@code schema} (Flyway, history table {@code
   * flyway_schema_history} in the same schema). Safe to call from several processes at once.
   *
   * @throws org.flywaydb.core.api.FlywayException if the database cannot be migrated
   */
  public static void migrate(DataSource dataSource, String schema) {
    new Tables(schema); // checks the name
    Flyway.configure()
        .dataSource(dataSource)
        .schemas(schema)
        .locations("classpath:dev/rcrt/postgres/migration")
        .load()
        .migrate();
  }

  @Override
  public Breadcrumb create(BreadcrumbCreate create) {
    return insert(create, null);
  }

  /** One statement: the claim's row is locked and checked, then the record written, or nothing. */
  @Override
  public Breadcrumb create(BreadcrumbCreate create, WorkClaims.Claim fence) {
    return insert(create, Objects.requireNonNull(fence, "fence"));
  }

  private Breadcrumb insert(BreadcrumbCreate create, WorkClaims.@Nullable Claim fence) {
    Objects.requireNonNull(create, "create");
    Records.check(create);
    String id = create.id() != null ? create.id() : Ids.random();
    Instant now = clock.instant();
    Breadcrumb stored = Records.created(create, id, now);
    String json = RcrtJson.write(stored);
    return tx.read("create breadcrumb '" + create.title() + "'", c -> {
      // one statement: the row, unless its id or idempotency key is taken (or its fence lost), and its event
      try (PreparedStatement q = c.prepareStatement(fence == null ? tables.insert() : tables.insertFenced())) {
        Object[] row = {id, stored.schemaName(), stored.tags().toArray(String[]::new), RcrtJson.write(stored.context()), json,
            Rows.expiresAt(stored), Rows.maxReads(stored), create.idempotencyKey()};
        if (fence == null) {
          Rows.bind(q, row);
        } else {
          Object[] fenced = new Object[row.length + 2];
          fenced[0] = fence.key();
          fenced[1] = fence.token();
          System.arraycopy(row, 0, fenced, 2, row.length);
          Rows.bind(q, fenced);
        }
        try (ResultSet rs = q.executeQuery()) {
          if (rs.next()) {
            events.written(); // committed: the statement ran in auto-commit
            embedLater(id);
            return stored;
          }
        }
      }
      if (fence != null && Rows.longValue(c, tables.claimCurrent(), fence.key(), fence.token()) == null) {
        throw new ClaimLostException(fence.key(), "taken over, completed or given back in the store's work_claims");
      }
      if (create.idempotencyKey() != null) {
        Breadcrumb earlier = Rows.one(c, tables.byIdempotencyKey(), create.idempotencyKey());
        if (earlier != null) {
          return earlier;
        }
      }
      Long existing = Rows.longValue(c, tables.versionOf(), id);
      throw new ConflictException(id, 0, existing == null ? 1 : existing);
    });
  }

  @Override
  public Optional<Breadcrumb> get(String id) {
    Objects.requireNonNull(id, "id");
    return tx.read("get breadcrumb '" + id + "'", c -> {
      Instant now = clock.instant();
      try (PreparedStatement q = c.prepareStatement(tables.getVisible())) {
        Rows.bind(q, id, Rows.at(now));
        try (ResultSet rs = q.executeQuery()) {
          if (!rs.next()) {
            return Optional.empty();
          }
          if (!rs.getBoolean(3)) {
            return Optional.of(parsed.read(rs, 1, 2));
          }
        }
      }
      return Optional.ofNullable(Rows.one(c, tables.countRead(), id, Rows.at(now)));
    });
  }

  @Override
  public Breadcrumb update(String id, long expectedVersion, BreadcrumbUpdate update) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(update, "update");
    Records.check(id, update);
    Breadcrumb updated = tx.writeRecord("update breadcrumb '" + id + "'", id, c -> {
      Instant now = clock.instant();
      Breadcrumb old = Rows.one(c, tables.lockVisible(), id, Rows.at(now));
      if (old == null) {
        throw new NotFoundException("no breadcrumb with id '" + id + "' to update");
      }
      if (old.version() != expectedVersion) {
        throw new ConflictException(id, expectedVersion, old.version());
      }
      Breadcrumb stored = Records.updated(old, update, now);
      Rows.execute(c, tables.update(), id, stored.version(), stored.tags().toArray(String[]::new),
          RcrtJson.write(stored.context()), RcrtJson.write(stored), id);
      return stored;
    });
    events.written();
    if (vectors != null) {
      vectors.removeBefore(id, updated.version());
    }
    embedLater(id);
    return updated;
  }

  /**
   * Queues a record this process wrote to be embedded, and starts keeping the index (its rebuild
   * and the fleet's sweep) on the first write: a process that only reads never runs the model.
   */
  private void embedLater(String id) {
    if (indexer != null && feed != null) {
      indexer.offer(id);
      feed.start();
    }
  }

  @Override
  public boolean delete(String id) {
    Objects.requireNonNull(id, "id");
    boolean deleted = tx.writeRecord("delete breadcrumb '" + id + "'", id, c -> Rows.one(c, tables.delete(), id) != null);
    if (deleted) {
      events.written();
      if (vectors != null) {
        vectors.remove(id);
      }
    }
    return deleted;
  }

  @Override
  public List<Breadcrumb> search(Selector selector, int limit, int offset) {
    Objects.requireNonNull(selector, "selector");
    if (limit < 1) {
      throw new IllegalArgumentException("limit < 1: " + limit);
    }
    if (offset < 0) {
      throw new IllegalArgumentException("offset < 0: " + offset);
    }
    return tx.read("search", c -> Rows.search(c, tables, parsed, selector, limit, offset, clock.instant()));
  }

  @Override
  public List<Breadcrumb> history(String id) {
    Objects.requireNonNull(id, "id");
    return tx.read("history of breadcrumb '" + id + "'", c -> {
      Instant now = clock.instant();
      if (Rows.longValue(c, tables.existsVisible(), id, Rows.at(now)) == null) {
        throw new NotFoundException("no breadcrumb with id '" + id + "'");
      }
      return Rows.all(c, tables.history(), id, id);
    });
  }

  @Override
  public Subscription subscribe(Selector selector, BreadcrumbListener listener) {
    Objects.requireNonNull(selector, "selector");
    Objects.requireNonNull(listener, "listener");
    try {
      Subscription s = events.subscribe(selector, listener, eventExecutor);
      subscriptions.add(s);
      return () -> {
        subscriptions.remove(s);
        s.close();
      };
    } catch (SQLException e) {
      throw Transactions.translate("subscribe", e);
    }
  }

  /**
   * Removes expired breadcrumbs (no events), and work claims completed longer ago than the event
   * retention.
   */
  @Override
  public int purgeExpired() {
    Instant now = clock.instant();
    claims.purgeCompleted(now.minus(retention));
    return tx.read("purge expired breadcrumbs", c -> Rows.update(c, tables.purge(), Rows.at(now)));
  }

  /** Claims in the {@code work_claims} table: atomic across every process on this database and schema. */
  @Override
  public Optional<WorkClaims> claims() {
    return Optional.of(claims);
  }

  /**
   * Search by meaning, when the store was built with {@link Builder#embeddings}; see the class
   * comment.
   */
  @Override
  public Optional<VectorSearch> vectorSearch() {
    return Optional.ofNullable(vectorSearch);
  }

  /** The current, visible records among {@code ids}, by id, without counting reads. */
  private Map<String, Breadcrumb> currentOf(Collection<String> ids) {
    if (ids.isEmpty()) {
      return Map.of();
    }
    return tx.read("read " + ids.size() + " breadcrumbs", c -> {
      Map<String, Breadcrumb> out = new HashMap<>();
      for (Breadcrumb b : Rows.all(c, tables.visibleAmong(), c.createArrayOf("text", ids.toArray()), Rows.at(clock.instant()))) {
        out.put(b.id(), b);
      }
      return out;
    });
  }

  /**
   * How long this process's event delivery has waited, as of its last read of the log (at least
   * every {@link Builder#pollInterval(Duration) poll interval} while anything subscribes), for a
   * transaction in progress that can write this store's events: zero when none holds it back or
   * nothing subscribes. A value that keeps growing means a stalled writer (see the class
   * documentation and the WARN naming it); {@code RcrtTelemetry.observeEventDeliveryLag} exports it
   * as a gauge. Thread-safe, never null.
   */
  public Duration eventDeliveryLag() {
    return events.lag();
  }

  /**
   * Stops delivering events and embedding, and returns the listening and renewal connections; the
   * data source stays open. The last store object of this process on the schema first sends the
   * wake-up of writes that committed since the last one was sent (waiting at most 10 s for it), so
   * other processes learn of them at once. Records not yet embedded are embedded by another process's sweep, or by this
   * store's next start. Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    if (feed != null && indexer != null && vectors != null && vectorEvents != null) {
      vectorEvents.close();
      indexer.close();
      feed.close();
      vectors.close();
    }
    subscriptions.forEach(Subscription::close);
    subscriptions.clear();
    events.release();
    claims.close();
  }

  /** Builder for {@link PostgresBreadcrumbStore}. Not thread-safe. */
  public static final class Builder {
    private final DataSource dataSource;
    private String schema = "rcrt";
    private Clock clock = Clock.systemUTC();
    private @Nullable Executor eventExecutor;
    private boolean migrate = true;
    private Duration pollInterval = Duration.ofSeconds(1);
    private Duration eventRetention = Duration.ofHours(24);
    private Duration writerStallWarning = Duration.ofSeconds(10);
    private @Nullable EmbeddingProvider embeddings;
    private EmbeddingPolicy policy = EmbeddingPolicy.rcrt();
    private int exactBelow = 10_000;

    private Builder(DataSource dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /**
     * Embed records with {@code provider} by RCRT's {@link EmbeddingPolicy#rcrt() policy}, so that
     * the store answers {@link PostgresBreadcrumbStore#vectorSearch()}; default none. Every process
     * sharing the store should use the same model: rows of another model are re-embedded by the
     * sweep of a process that uses this one.
     */
    public Builder embeddings(EmbeddingProvider provider) {
      return embeddings(provider, EmbeddingPolicy.rcrt());
    }

    /** Embed records with {@code provider} by {@code policy}; see {@link #embeddings(EmbeddingProvider)}. */
    public Builder embeddings(EmbeddingProvider provider, EmbeddingPolicy policy) {
      this.embeddings = Objects.requireNonNull(provider, "provider");
      this.policy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * Below this many vectors, each process's index compares the query with every vector (exact);
     * from it on, it searches Lucene's HNSW graph (approximate: recall@10 of 0.997 against exact at
     * 100,000 MiniLM vectors, 1.7 ms against 18 ms, see {@code docs/benchmarks.md}). Default 10,000; {@code Integer.MAX_VALUE} for
     * always exact.
     */
    public Builder exactVectorSearchBelow(int vectors) {
      if (vectors < 0) {
        throw new IllegalArgumentException("exactVectorSearchBelow < 0: " + vectors);
      }
      this.exactBelow = vectors;
      return this;
    }

    /** The PostgreSQL schema holding the tables; default {@code rcrt}. Lower-case SQL identifier. */
    public Builder schema(String schema) {
      new Tables(schema);
      this.schema = schema;
      return this;
    }

    /** The clock for timestamps and TTLs; default the system UTC clock. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Where subscribers are called; default a pool of daemon threads. */
    public Builder eventExecutor(Executor executor) {
      this.eventExecutor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /** Whether {@link #build()} runs the migrations; default true. */
    public Builder migrate(boolean migrate) {
      this.migrate = migrate;
      return this;
    }

    /**
     * The longest a subscriber waits before reading the event log when no {@code NOTIFY} arrives
     * (notifications can be lost with a connection), and the vector index before reading vectors
     * other processes wrote; default 1 s.
     */
    public Builder pollInterval(Duration interval) {
      if (interval.isNegative() || interval.isZero()) {
        throw new IllegalArgumentException("pollInterval must be positive: " + interval);
      }
      this.pollInterval = interval;
      return this;
    }

    /** How long events are kept for subscribers that reconnect and catch up; default 24 h. */
    public Builder eventRetention(Duration retention) {
      if (retention.isNegative() || retention.isZero()) {
        throw new IllegalArgumentException("eventRetention must be positive: " + retention);
      }
      this.eventRetention = retention;
      return this;
    }

    /**
     * How long event delivery waits for one transaction in progress that can write this store's
     * events before a WARN names it (once per transaction); default 10 s. Store objects of one
     * process share an event reader only when this agrees.
     */
    public Builder writerStallWarning(Duration warning) {
      if (warning.isNegative() || warning.isZero()) {
        throw new IllegalArgumentException("writerStallWarning must be positive: " + warning);
      }
      this.writerStallWarning = warning;
      return this;
    }

    /**
     * The store, its tables migrated unless {@link #migrate(boolean)} is off.
     *
     * @throws org.flywaydb.core.api.FlywayException if the migration fails
     */
    public PostgresBreadcrumbStore build() {
      return new PostgresBreadcrumbStore(this);
    }
  }
}
