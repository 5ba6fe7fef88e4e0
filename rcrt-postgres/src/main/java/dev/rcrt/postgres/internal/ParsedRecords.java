package dev.rcrt.postgres.internal;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.RcrtJson;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Records this store object has already parsed, by the write sequence number of their row: a row's
 * {@code record} never changes while its {@code seq} stays (every create and update of a record
 * takes the next number of the store's one sequence; only the {@code reads} column changes in
 * place), so a record read again (the tools every turn discovers, a session's earlier messages)
 * costs its row, not a JSON parse. Holds at most {@value #SIZE} records, the least recently used
 * evicted (Caffeine). The records are shared with every caller, as {@link Breadcrumb} documents:
 * their JSON trees are read-only. Thread-safe.
 */
public final class ParsedRecords {
  /** How many records are kept: a few thousand records of about a kilobyte, a few megabytes parsed. */
  static final int SIZE = 4096;

  private final Cache<Long, Breadcrumb> bySeq = Caffeine.newBuilder().maximumSize(SIZE).build();

  /** The record of the current row, {@code seq} and {@code record} being the columns of its sequence number and JSON. */
  public Breadcrumb read(ResultSet rs, int seq, int record) throws SQLException {
    long key = rs.getLong(seq);
    Breadcrumb parsed = bySeq.getIfPresent(key);
    if (parsed == null) {
      parsed = RcrtJson.parseAs(rs.getString(record));
      bySeq.put(key, parsed);
    }
    return parsed;
  }
}
