package dev.rcrt.postgres.internal;

import java.util.regex.Pattern;

/**
 * The store's tables and queries in one PostgreSQL schema (created by the Flyway migrations in
 * {@code dev/rcrt/postgres/migration}). Every name is qualified, so the store never depends on a
 * connection's {@code search_path}.
 *
 * <p>A record is expired when {@code expires_at <= now} or {@code reads >= max_reads}, the same
 * rule as {@code Expiry.expired}; {@code now} is always the store's clock, passed as a parameter.
 */
public final class Tables {
  private static final Pattern NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

  /** Rows not expired at the instant bound to its {@code ?}. */
  public static final String VISIBLE = "(expires_at IS NULL OR expires_at > ?) AND (max_reads IS NULL OR reads < max_reads)";

  public final String schema;
  public final String breadcrumbs;
  public final String versions;
  public final String events;
  public final String sequence;
  /** The {@code LISTEN}/{@code NOTIFY} channel that wakes subscribers. */
  public final String channel;
  /** First key of the writers' lock ({@link #writerLock()}): "RCRT" in ASCII. */
  private static final int WRITERS = 0x52435254;
  /** Second key of the writers' lock: this schema's. */
  private final int writerKey;

  /**
   * @throws IllegalArgumentException unless {@code schema} is a lower-case SQL identifier
   */
  public Tables(String schema) {
    if (!NAME.matcher(schema).matches()) {
      throw new IllegalArgumentException(
          "schema name '" + schema + "' must be a lower-case SQL identifier ([a-z_][a-z0-9_]*, at most 63 characters)");
    }
    this.schema = schema;
    this.breadcrumbs = schema + ".breadcrumbs";
    this.versions = schema + ".breadcrumb_versions";
    this.events = schema + ".breadcrumb_events";
    this.sequence = schema + ".write_seq";
    this.channel = "rcrt_events_" + schema;
    this.writerKey = schema.hashCode() & 0x7fffffff;
  }

  /**
   * A call that takes this schema's writers' lock: a transaction-scoped advisory lock, shared, that
   * every transaction writing events or vectors of this schema takes before it has a transaction id
   * (so before its first write). Writers never wait for one another on it; readers look it up in
   * {@code pg_locks} to tell this store's writers from the rest of the server ({@link #horizon(boolean)}).
   */
  public String writerLock() {
    return "pg_advisory_xact_lock_shared(" + WRITERS + ", " + writerKey + ")";
  }

  /**
   * A {@code WITH} clause whose {@code horizon} row holds {@code tx}, the transaction id below which
   * every event and vector row of this schema that will ever commit is visible to this statement;
   * {@code xmin}, the oldest transaction in progress on the whole server ({@code xmax}, the next
   * transaction id, when none is); and {@code held}, whether
   * a transaction in progress that can write this schema holds {@code tx} back (null when not
   * {@code precise}).
   *
   * <p>Not {@code precise}, the horizon is {@code xmin}: cheap, and right as long as transactions
   * are short, but any transaction of the server (another database, an open {@code psql} session)
   * holds it back. {@code precise}, it is the oldest transaction in the statement's snapshot that
   * still runs and may write this schema (else the snapshot's {@code xmax}). A transaction of the
   * snapshot counts unless one consistent read of {@code pg_locks} shows it running in a backend that
   * does not hold {@link #writerLock()}: as writers take that lock before their transaction id, such
   * a transaction never writes here. One that ended meanwhile, a prepared transaction, or one whose
   * lock entry is not yet visible counts, for this read only (fail safe: late, never lost). Reading
   * {@code pg_locks} costs about a millisecond on a server with a few hundred connections and holds
   * the lock manager's partitions for that long, so readers ask for it only while {@code xmin}
   * stays put.
   */
  public String horizon(boolean precise) {
    String snap = "WITH snap AS (SELECT pg_current_snapshot() AS s),";
    if (!precise) {
      return snap + " horizon AS (SELECT pg_snapshot_xmin(s)::text::bigint AS tx, NULL::boolean AS held,"
          + " pg_snapshot_xmin(s)::text::bigint AS xmin, pg_snapshot_xmax(s)::text::bigint AS xmax FROM snap)";
    }
    return snap
        + " locks AS MATERIALIZED (SELECT pid, locktype, transactionid, database, classid, objid, objsubid, mode, granted"
        + " FROM pg_catalog.pg_locks WHERE locktype IN ('transactionid', 'advisory') AND granted),"
        + " writers AS (SELECT pid FROM locks WHERE locktype = 'advisory' AND pid IS NOT NULL"
        + " AND database = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database())"
        + " AND classid = " + WRITERS + " AND objid = " + writerKey + " AND objsubid = 2),"
        + " others AS (SELECT transactionid::text::bigint AS xid FROM locks WHERE locktype = 'transactionid' AND mode = 'ExclusiveLock'"
        + " AND pid IS NOT NULL AND pid NOT IN (SELECT pid FROM writers)),"
        + " oldest AS (SELECT min(x::text::bigint) AS tx FROM snap, pg_snapshot_xip(snap.s) x"
        + " WHERE (x::text::bigint & 4294967295) NOT IN (SELECT xid FROM others)),"
        + " horizon AS (SELECT coalesce(oldest.tx, pg_snapshot_xmax(snap.s)::text::bigint) AS tx, oldest.tx IS NOT NULL AS held,"
        + " pg_snapshot_xmin(snap.s)::text::bigint AS xmin, pg_snapshot_xmax(snap.s)::text::bigint AS xmax FROM snap, oldest)";
  }

  /**
   * Who runs the transaction whose id is {@code ?} (the horizon {@link #horizon(boolean)} reported held):
   * pid, database, application name and client address, as far as this role may see them.
   */
  public String transactionHolder() {
    return "SELECT t.pid, a.datname, a.application_name, a.client_addr::text FROM pg_catalog.pg_locks t"
        + " LEFT JOIN pg_catalog.pg_stat_activity a ON a.pid = t.pid"
        + " WHERE t.locktype = 'transactionid' AND t.mode = 'ExclusiveLock' AND t.granted"
        + " AND t.transactionid::text::bigint = (?::bigint & 4294967295) LIMIT 1";
  }

  /**
   * Serialises the writes of one record (statement one of an update or delete): taken before the
   * transaction has an id, so a later write of the record always gets a larger transaction id, and
   * the record's events are read in its commit order. Writes of other records do not wait. Takes
   * the {@link #writerLock()} too.
   */
  public String recordLock() {
    return "SELECT pg_advisory_xact_lock(hashtextextended(?, 0)), " + writerLock();
  }

  /** The key {@link #recordLock()} takes for record {@code id}. */
  public String recordLockKey(String id) {
    return schema + "/" + id;
  }

  /**
   * Creates a record in one statement: the row (unless its id or idempotency key exists: then no
   * row comes back) and its event. The row is the record's first version:
   * {@code breadcrumb_versions} keeps only versions that were replaced (see {@link #update()}).
   */
  public String insert() {
    return "WITH ins AS (INSERT INTO " + breadcrumbs
        + " (id, version, schema_name, tags, context, record, expires_at, max_reads, idempotency_key)"
        + " SELECT ?, 1, ?, ?, ?::jsonb, ?::json, ?, ?, ? FROM (SELECT " + writerLock() + ") w ON CONFLICT DO NOTHING"
        + " RETURNING id, seq, version, record, expires_at, max_reads)"
        + recorded("ins", "CREATED");
  }

  /**
   * {@link #insert()} fenced by a claim: the row is written only if the claim named by the last
   * three parameters (key, token, now) is the key's current, unexpired claim, whose row the
   * statement locks ({@code FOR SHARE}) so that a takeover waits for this write and a takeover that
   * committed first makes the check fail.
   */
  public String insertFenced() {
    return "WITH w AS (SELECT " + writerLock() + "),"
        + " fence AS (SELECT 1 FROM " + schema + ".work_claims, w WHERE key = ? AND token = ? AND NOT done AND expires_at > '-infinity'"
        + " FOR SHARE OF work_claims),"
        + " ins AS (INSERT INTO " + breadcrumbs
        + " (id, version, schema_name, tags, context, record, expires_at, max_reads, idempotency_key)"
        + " SELECT ?, 1, ?, ?, ?::jsonb, ?::json, ?, ?, ? FROM fence ON CONFLICT DO NOTHING"
        + " RETURNING id, seq, version, record, expires_at, max_reads)"
        + recorded("ins", "CREATED");
  }

  /**
   * Whether the claim (key, token) is current: nobody took the key over since (its token is
   * unchanged), it is not completed and not given back. A lease that ran out with nobody taking
   * over still fences: nobody else could act meanwhile.
   */
  public String claimCurrent() {
    return "SELECT 1 FROM " + schema + ".work_claims WHERE key = ? AND token = ? AND NOT done AND expires_at > '-infinity'";
  }

  /**
   * Writes an update of a record locked by {@link #recordLock()} in one statement: the version it
   * replaces goes to {@code breadcrumb_versions} (the statement's snapshot reads the row before the
   * update), then the row and its event. Parameters: id, version, tags, context,
   * record, id.
   */
  public String update() {
    return "WITH old AS (SELECT id, version, record FROM " + breadcrumbs + " WHERE id = ?),"
        + " ver AS (INSERT INTO " + versions + " (id, version, record) SELECT id, version, record FROM old ON CONFLICT DO NOTHING),"
        + " up AS (UPDATE " + breadcrumbs
        + " SET seq = nextval('" + sequence + "'), version = ?, tags = ?, context = ?::jsonb, record = ?::json WHERE id = ?"
        + " RETURNING id, seq, version, record, expires_at, max_reads)"
        + recorded("up", "UPDATED");
  }

  /** Deletes a record locked by {@link #recordLock()} and writes its event, in one statement. */
  public String delete() {
    return "WITH del AS (DELETE FROM " + breadcrumbs + " WHERE id = ? RETURNING id, record, expires_at, max_reads),"
        + " ev AS (INSERT INTO " + events + " (seq, type, id, record, expires_at, max_reads)"
        + " SELECT nextval('" + sequence + "'), 'DELETED', id, record, expires_at, max_reads FROM del)"
        + " SELECT record FROM del";
  }

  /** The event row of a write whose row {@code cte} returns. */
  private String recorded(String cte, String type) {
    return ", ev AS (INSERT INTO " + events + " (seq, type, id, record, expires_at, max_reads)"
        + " SELECT seq, '" + type + "', id, record, expires_at, max_reads FROM " + cte + ")"
        + " SELECT seq FROM " + cte;
  }

  /**
   * The wake-up of the processes listening on {@link #channel}, sent after writes committed, in a
   * transaction of its own that does not wait for its WAL flush (see {@code WakeUps}).
   */
  public String wakeUp() {
    return "SELECT set_config('synchronous_commit', 'off', true), pg_notify('" + channel + "', '')";
  }

  public String byIdempotencyKey() {
    return "SELECT record FROM " + breadcrumbs + " WHERE idempotency_key = ?";
  }

  public String versionOf() {
    return "SELECT version FROM " + breadcrumbs + " WHERE id = ?";
  }

  /** The current record and its read count, locked for an update, if visible at {@code ?}. */
  public String lockVisible() {
    return "SELECT record FROM " + breadcrumbs + " WHERE id = ? AND " + VISIBLE + " FOR UPDATE";
  }

  /** The row's sequence number, its record and whether reads count, if visible. */
  public String getVisible() {
    return "SELECT seq, record, max_reads IS NOT NULL FROM " + breadcrumbs + " WHERE id = ? AND " + VISIBLE;
  }

  /** Counts one read of a read-limited record, if a read is left and its time has not passed. */
  public String countRead() {
    return "UPDATE " + breadcrumbs + " SET reads = reads + 1 WHERE id = ? AND " + VISIBLE + " RETURNING record";
  }

  /**
   * Every version of record {@code ?} (the id, twice), oldest first: the replaced ones and the row.
   * A version in both (written by a process from before versions were kept only once replaced)
   * comes once.
   */
  public String history() {
    return "SELECT DISTINCT ON (version) record FROM (SELECT version, record FROM " + versions + " WHERE id = ?"
        + " UNION ALL SELECT version, record FROM " + breadcrumbs + " WHERE id = ?) h ORDER BY version";
  }

  /** The current records among the ids in array {@code ?} that are visible at {@code ?}, without counting reads. */
  public String visibleAmong() {
    return "SELECT record FROM " + breadcrumbs + " WHERE id = ANY(?) AND " + VISIBLE;
  }

  public String existsVisible() {
    return "SELECT 1 FROM " + breadcrumbs + " WHERE id = ? AND " + VISIBLE;
  }

  public String purge() {
    return "DELETE FROM " + breadcrumbs + " WHERE NOT (" + VISIBLE + ")";
  }

  public String trimEvents() {
    return "DELETE FROM " + events + " WHERE written_at < now() - make_interval(secs => ?)";
  }

  /**
   * The position ({@code tx, seq}) of the newest event every reader may take now: written by a
   * transaction below the {@link #horizon(boolean)}, so no event before it can still appear.
   */
  public String lastEvent(boolean precise) {
    return horizon(precise) + " SELECT tx, seq FROM " + events + " WHERE tx < (SELECT tx FROM horizon)"
        + " ORDER BY tx DESC, seq DESC LIMIT 1";
  }

  /**
   * Events after position {@code (?, ?)} that every reader may take now (below the {@link
   * #horizon(boolean)}), in log order, at most {@code ?}: {@code tx, seq, type, record, expires_at},
   * and one more row for the horizon itself, with a null {@code seq}, its {@code tx}, {@code held},
   * {@code xmin} and {@code xmax} (null in the event rows). One statement per wake-up.
   */
  public String eventsReady(boolean precise) {
    return horizon(precise) + " SELECT tx, NULL::bigint AS seq, NULL::text AS type, NULL::json AS record,"
        + " NULL::timestamptz AS expires_at, held, xmin, xmax FROM horizon"
        + " UNION ALL (SELECT tx, seq, type, record, expires_at, NULL::boolean, NULL::bigint, NULL::bigint FROM " + events
        + " WHERE (tx, seq) > (?, ?) AND tx < (SELECT tx FROM horizon) ORDER BY tx, seq LIMIT ?)";
  }

  /** Events after position {@code (?, ?)} up to and including {@code (?, ?)}, in log order, at most {@code ?}. */
  public String eventsAfter() {
    return "SELECT tx, seq, type, record, expires_at FROM " + events
        + " WHERE (tx, seq) > (?, ?) AND (tx, seq) <= (?, ?) ORDER BY tx, seq LIMIT ?";
  }
}
