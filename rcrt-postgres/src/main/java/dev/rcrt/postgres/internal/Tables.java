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
  }

  /** Serialises the store's writers: sequence order is then commit order. */
  public String writeLock() {
    return "SELECT pg_advisory_xact_lock(hashtext('" + schema + ".writes'))";
  }

  public String nextSeq() {
    return "SELECT nextval('" + sequence + "')";
  }

  public String insert() {
    return "INSERT INTO " + breadcrumbs
        + " (id, seq, version, schema_name, tags, context, record, expires_at, max_reads, idempotency_key)"
        + " VALUES (?, ?, ?, ?, ?, ?::jsonb, ?::json, ?, ?, ?)";
  }

  public String update() {
    return "UPDATE " + breadcrumbs + " SET seq = ?, version = ?, tags = ?, context = ?::jsonb, record = ?::json WHERE id = ?";
  }

  public String insertVersion() {
    return "INSERT INTO " + versions + " (id, version, record) VALUES (?, ?, ?::json)";
  }

  public String insertEvent() {
    return "INSERT INTO " + events + " (seq, type, id, record, expires_at, max_reads) VALUES (?, ?, ?, ?::json, ?, ?)";
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

  /** The record and whether reads count, if visible. */
  public String getVisible() {
    return "SELECT record, max_reads IS NOT NULL FROM " + breadcrumbs + " WHERE id = ? AND " + VISIBLE;
  }

  /** Counts one read of a read-limited record, if a read is left and its time has not passed. */
  public String countRead() {
    return "UPDATE " + breadcrumbs + " SET reads = reads + 1 WHERE id = ? AND " + VISIBLE + " RETURNING record";
  }

  public String delete() {
    return "DELETE FROM " + breadcrumbs + " WHERE id = ? RETURNING record";
  }

  public String history() {
    return "SELECT record FROM " + versions + " WHERE id = ? ORDER BY version";
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

  public String lastEvent() {
    return "SELECT coalesce(max(seq), 0) FROM " + events;
  }

  public String eventsAfter() {
    return "SELECT seq, type, record, expires_at FROM " + events + " WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?";
  }
}
