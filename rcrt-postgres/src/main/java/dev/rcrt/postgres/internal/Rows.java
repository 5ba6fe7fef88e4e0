package dev.rcrt.postgres.internal;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.spi.Expiry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGStatement;

/** JDBC plumbing for the store: binding values, reading records back. */
public final class Rows {
  private Rows() {}

  /** An instant as PostgreSQL's {@code timestamptz}. */
  public static OffsetDateTime at(Instant instant) {
    return instant.atOffset(ZoneOffset.UTC);
  }

  /** The time part of a record's TTL, for the {@code expires_at} column. */
  public static @Nullable OffsetDateTime expiresAt(Breadcrumb b) {
    Instant at = Expiry.expiresAt(b);
    return at == null ? null : at(at);
  }

  /** The read part of a record's TTL, for the {@code max_reads} column. */
  public static @Nullable Long maxReads(Breadcrumb b) {
    return Expiry.maxReads(b);
  }

  /** Binds {@code values} in order; a {@code String[]} becomes a {@code text[]}. */
  public static void bind(PreparedStatement q, @Nullable Object... values) throws SQLException {
    for (int i = 0; i < values.length; i++) {
      Object v = values[i];
      if (v instanceof String[] array) {
        q.setArray(i + 1, q.getConnection().createArrayOf("text", array));
      } else {
        q.setObject(i + 1, v);
      }
    }
  }

  /** Runs a statement whose result, if any, is not needed. */
  public static void execute(Connection c, String sql, @Nullable Object... values) throws SQLException {
    try (PreparedStatement q = c.prepareStatement(sql)) {
      bind(q, values);
      q.execute();
    }
  }

  /** Runs an update and returns the rows it changed. */
  public static int update(Connection c, String sql, @Nullable Object... values) throws SQLException {
    try (PreparedStatement q = c.prepareStatement(sql)) {
      bind(q, values);
      return q.executeUpdate();
    }
  }

  /** The record in the first column of the first row, or null for no row. */
  public static @Nullable Breadcrumb one(Connection c, String sql, @Nullable Object... values) throws SQLException {
    try (PreparedStatement q = c.prepareStatement(sql)) {
      bind(q, values);
      try (ResultSet rs = q.executeQuery()) {
        return rs.next() ? RcrtJson.parseAs(rs.getString(1)) : null;
      }
    }
  }

  /** The records in the first column of every row, in order. */
  public static List<Breadcrumb> all(Connection c, String sql, @Nullable Object... values) throws SQLException {
    List<Breadcrumb> out = new ArrayList<>();
    try (PreparedStatement q = c.prepareStatement(sql)) {
      bind(q, values);
      try (ResultSet rs = q.executeQuery()) {
        while (rs.next()) {
          out.add(RcrtJson.parseAs(rs.getString(1)));
        }
      }
    }
    return List.copyOf(out);
  }

  /** The number in the first column of the first row, or null for no row. */
  public static @Nullable Long longValue(Connection c, String sql, @Nullable Object... values) throws SQLException {
    try (PreparedStatement q = c.prepareStatement(sql)) {
      bind(q, values);
      try (ResultSet rs = q.executeQuery()) {
        return rs.next() ? rs.getLong(1) : null;
      }
    }
  }

  /**
   * Has PostgreSQL plan {@code q} for its values each time it runs (pgjdbc's unnamed statement),
   * never with the generic plan a named prepared statement settles on after five runs. A search's
   * cost depends on its values: a generic plan cannot tell a tag that a handful of records carry
   * from one that every record carries, and walks the recency index for both (1.3 ms a session
   * search where the tags' index takes 0.17 ms, measured in {@code DurableTurnLoad}). Planning
   * each run costs tens of microseconds. A statement from a driver other than pgjdbc is left as it is.
   */
  private static void plannedWithValues(PreparedStatement q) throws SQLException {
    if (q.isWrapperFor(PGStatement.class)) {
      q.unwrap(PGStatement.class).setPrepareThreshold(0);
    }
  }

  /**
   * The visible records {@code selector} matches, newest first, {@code offset} skipped, at most
   * {@code limit}: SQL narrows ({@link SqlSelector}), {@link Selector#matches} decides, and the
   * rows are read newest first in batches until enough have matched. A row {@code parsed} already
   * holds is not parsed again.
   */
  public static List<Breadcrumb> search(Connection c, Tables t, ParsedRecords parsed, Selector selector, int limit, int offset, Instant now)
      throws SQLException {
    SqlSelector narrowed = SqlSelector.of(selector);
    String sql = "SELECT seq, record FROM " + t.breadcrumbs + " WHERE " + narrowed.where + " AND " + Tables.VISIBLE
        + " AND seq < ? ORDER BY seq DESC LIMIT ?";
    int batch = (int) Math.min(1000, Math.max(64L, 2L * ((long) limit + offset)));
    List<Breadcrumb> found = new ArrayList<>(Math.min(limit, 64));
    int skip = offset;
    long before = Long.MAX_VALUE;
    while (true) {
      int read = 0;
      try (PreparedStatement q = c.prepareStatement(sql)) {
        plannedWithValues(q);
        List<Object> values = new ArrayList<>(narrowed.parameters);
        values.add(at(now));
        values.add(before);
        values.add(batch);
        bind(q, values.toArray());
        try (ResultSet rs = q.executeQuery()) {
          while (rs.next()) {
            read++;
            before = rs.getLong(1);
            Breadcrumb b = parsed.read(rs, 1, 2);
            if (!selector.matches(b)) {
              continue;
            }
            if (skip > 0) {
              skip--;
            } else {
              found.add(b);
              if (found.size() == limit) {
                return List.copyOf(found);
              }
            }
          }
        }
      }
      if (read < batch) {
        return List.copyOf(found);
      }
    }
  }
}
