package dev.rcrt.postgres;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbListener;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.BreadcrumbUpdate;
import dev.rcrt.core.ConflictException;
import dev.rcrt.core.NotFoundException;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.core.WorkClaims;
import dev.rcrt.core.spi.DaemonThreads;
import dev.rcrt.core.spi.Ids;
import dev.rcrt.core.spi.Records;
import dev.rcrt.postgres.internal.EventPump;
import dev.rcrt.postgres.internal.PostgresClaims;
import dev.rcrt.postgres.internal.Rows;
import dev.rcrt.postgres.internal.Tables;
import dev.rcrt.postgres.internal.Transactions;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
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
 * the usual choice); the store borrows a connection per call and returns it, and keeps one for
 * {@code LISTEN} from its first subscription until {@link #close()}. It never closes the data
 * source.
 *
 * <p><b>Schema.</b> The tables live in their own PostgreSQL schema ({@code rcrt} by default),
 * created and upgraded by Flyway migrations when the store is built, unless {@link
 * Builder#migrate(boolean)} is off, in which case {@link #migrate(DataSource, String)} does it.
 * The record is kept as RCRT wire JSON exactly as written (checksum included); {@code context} is
 * also kept as JSONB with a GIN index, tags as a text array with a GIN index, and B-tree indexes
 * serve schema and recency.
 *
 * <p><b>Writes</b> of different records never wait for one another: a create is one statement (the
 * row, its first version, its event and the {@code NOTIFY}); an update or delete is a transaction
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
 * it, read by each process and woken by {@code NOTIFY}. Without a store-wide lock, transactions
 * commit out of sequence order; a reader therefore takes only the events of transactions older than
 * the oldest one still in progress ({@code pg_snapshot_xmin}), in transaction-id order: an event
 * whose transaction commits late is delivered, never skipped, and one record's events arrive in its
 * commit order (its writes hold its lock before they get a transaction id). The cost: a
 * transaction left open anywhere on the server (idle in transaction) holds back delivery until it
 * ends, as it holds back vacuum. A subscriber whose connection drops reconnects and catches up from
 * its last event, so nothing is lost or delivered twice. Events are kept for {@link
 * Builder#eventRetention(Duration)} (default 24 h): a process that is away longer misses the older
 * ones.
 *
 * <p>Thread-safe.
 */
public final class PostgresBreadcrumbStore implements BreadcrumbStore, AutoCloseable {
  private final DataSource dataSource;
  private final Tables tables;
  private final Clock clock;
  private final Transactions tx;
  private final EventPump events;
  private final PostgresClaims claims;
  private final Duration retention;

  private PostgresBreadcrumbStore(Builder b) {
    this.dataSource = b.dataSource;
    this.tables = new Tables(b.schema);
    this.clock = b.clock;
    this.tx = new Transactions(dataSource, tables);
    Executor executor = b.eventExecutor != null ? b.eventExecutor : DaemonThreads.pool(0, "rcrt-store-events");
    this.events = new EventPump(dataSource, tables, clock, executor, b.pollInterval, b.eventRetention);
    this.claims = new PostgresClaims(tx, tables, clock);
    this.retention = b.eventRetention;
    if (b.migrate) {
      migrate(dataSource, b.schema);
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
    Objects.requireNonNull(create, "create");
    Records.check(create);
    String id = create.id() != null ? create.id() : Ids.random();
    Breadcrumb stored = Records.created(create, id, clock.instant());
    String json = RcrtJson.write(stored);
    return tx.read("create breadcrumb '" + create.title() + "'", c -> {
      // one statement: the row, unless its id or idempotency key is taken, with its version, event and NOTIFY
      try (PreparedStatement q = c.prepareStatement(tables.insert())) {
        Rows.bind(q, id, stored.schemaName(), stored.tags().toArray(String[]::new), RcrtJson.write(stored.context()), json,
            Rows.expiresAt(stored), Rows.maxReads(stored), create.idempotencyKey());
        try (ResultSet rs = q.executeQuery()) {
          if (rs.next()) {
            return stored;
          }
        }
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
          if (!rs.getBoolean(2)) {
            return Optional.of(RcrtJson.parseAs(rs.getString(1)));
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
    return tx.writeRecord("update breadcrumb '" + id + "'", id, c -> {
      Instant now = clock.instant();
      Breadcrumb old = Rows.one(c, tables.lockVisible(), id, Rows.at(now));
      if (old == null) {
        throw new NotFoundException("no breadcrumb with id '" + id + "' to update");
      }
      if (old.version() != expectedVersion) {
        throw new ConflictException(id, expectedVersion, old.version());
      }
      Breadcrumb stored = Records.updated(old, update, now);
      Rows.execute(c, tables.update(), stored.version(), stored.tags().toArray(String[]::new),
          RcrtJson.write(stored.context()), RcrtJson.write(stored), id);
      return stored;
    });
  }

  @Override
  public boolean delete(String id) {
    Objects.requireNonNull(id, "id");
    return tx.writeRecord("delete breadcrumb '" + id + "'", id, c -> Rows.one(c, tables.delete(), id) != null);
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
    return tx.read("search", c -> Rows.search(c, tables, selector, limit, offset, clock.instant()));
  }

  @Override
  public List<Breadcrumb> history(String id) {
    Objects.requireNonNull(id, "id");
    return tx.read("history of breadcrumb '" + id + "'", c -> {
      Instant now = clock.instant();
      if (Rows.longValue(c, tables.existsVisible(), id, Rows.at(now)) == null) {
        throw new NotFoundException("no breadcrumb with id '" + id + "'");
      }
      return Rows.all(c, tables.history(), id);
    });
  }

  @Override
  public Subscription subscribe(Selector selector, BreadcrumbListener listener) {
    Objects.requireNonNull(selector, "selector");
    Objects.requireNonNull(listener, "listener");
    try {
      return events.subscribe(selector, listener);
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

  /** Stops delivering events and returns the listening connection; the data source stays open. Idempotent. */
  @Override
  public void close() {
    events.close();
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

    private Builder(DataSource dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
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
     * (notifications can be lost with a connection); default 1 s.
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
     * The store, its tables migrated unless {@link #migrate(boolean)} is off.
     *
     * @throws org.flywaydb.core.api.FlywayException if the migration fails
     */
    public PostgresBreadcrumbStore build() {
      return new PostgresBreadcrumbStore(this);
    }
  }
}
