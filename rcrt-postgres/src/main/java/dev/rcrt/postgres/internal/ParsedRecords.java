package dev.rcrt.postgres.internal;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.RcrtJson;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Records already parsed from one schema in this process (by its event reader and the store objects
 * that share it, {@link EventPump#parsed()}), by the write sequence number of their row: a row's
 * {@code record} never changes while its {@code seq} stays (every create and update of a record
 * takes the next number of the store's one sequence; only the {@code reads} column changes in
 * place), so a record read again (the tools every turn discovers, a session's earlier messages)
 * costs its row, not a JSON parse. Holds records of at most {@value #MAX_CHARS} characters of JSON
 * together, the least recently used evicted (Caffeine), and none larger than {@value #MAX_ONE}
 * characters: anyone who may write the store decides how large a record is, and a few huge ones
 * must not take the heap. The records are shared with every caller, as {@link Breadcrumb} documents:
 * their JSON trees are read-only. Thread-safe.
 */
public final class ParsedRecords {
  /** The JSON characters of all records kept: 8 Mi, some thousands of records of a few kilobytes. */
  static final long MAX_CHARS = 8L * 1024 * 1024;

  /** The largest record kept, in JSON characters; a larger one is parsed on every read. */
  static final int MAX_ONE = 256 * 1024;

  private record Parsed(Breadcrumb record, int chars) {}

  private final Cache<Long, Parsed> bySeq =
      Caffeine.newBuilder().maximumWeight(MAX_CHARS).weigher((Long seq, Parsed p) -> p.chars()).build();

  /** The record of the current row, {@code seq} and {@code record} being the columns of its sequence number and JSON. */
  public Breadcrumb read(ResultSet rs, int seq, int record) throws SQLException {
    long key = rs.getLong(seq);
    Parsed kept = bySeq.getIfPresent(key);
    if (kept != null) {
      return kept.record();
    }
    String json = rs.getString(record);
    Breadcrumb parsed = RcrtJson.parseAs(json);
    if (json.length() <= MAX_ONE) {
      // another reader of the same row (the event reader, another store object) may have parsed it meanwhile: keep the
      // first, so every reader of a row gets one object
      Parsed first = bySeq.asMap().putIfAbsent(key, new Parsed(parsed, json.length()));
      return first != null ? first.record() : parsed;
    }
    return parsed;
  }
}
