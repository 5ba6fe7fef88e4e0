package dev.rcrt.core.internal;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.Selector;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Breadcrumbs by write sequence (newest = highest), with secondary indexes by tag and by schema
 * name, so that a search walks only the smallest candidate set instead of every record. Each index
 * key holds an append-only {@link SeqList}, since sequences only grow.
 *
 * <p>Not thread-safe: the owning store guards it with its lock.
 */
public final class RecencyIndex {
  private final Map<Long, Breadcrumb> bySeq = new HashMap<>();
  private final SeqList all = new SeqList();
  private final Map<String, SeqList> byTag = new HashMap<>();
  private final Map<String, SeqList> bySchema = new HashMap<>();
  private static final SeqList NONE = new SeqList();

  /** Indexes {@code breadcrumb} under write sequence {@code seq}, higher than any indexed before. */
  public void add(long seq, Breadcrumb breadcrumb) {
    bySeq.put(seq, breadcrumb);
    all.add(seq);
    for (String tag : breadcrumb.tags()) {
      byTag.computeIfAbsent(tag, t -> new SeqList()).add(seq);
    }
    if (breadcrumb.schemaName() != null) {
      bySchema.computeIfAbsent(breadcrumb.schemaName(), s -> new SeqList()).add(seq);
    }
  }

  /** Removes the entry written at {@code seq}; {@code breadcrumb} is what was indexed there. */
  public void remove(long seq, Breadcrumb breadcrumb) {
    bySeq.remove(seq);
    all.remove(seq);
    for (String tag : breadcrumb.tags()) {
      removeFrom(byTag, tag, seq);
    }
    if (breadcrumb.schemaName() != null) {
      removeFrom(bySchema, breadcrumb.schemaName(), seq);
    }
  }

  /** Number of indexed breadcrumbs. */
  public int size() {
    return bySeq.size();
  }

  /**
   * The sequences that may match {@code selector}, newest first: the smallest of the schema and
   * all-tags sets, else the union of the any-tags sets, else everything. Callers still apply the
   * full selector to each candidate.
   */
  public Iterable<Long> candidates(Selector selector) {
    SeqList smallest = null;
    if (selector.schemaName() != null) {
      smallest = bySchema.getOrDefault(selector.schemaName(), NONE);
    }
    for (String tag : selector.allTags()) {
      SeqList set = byTag.getOrDefault(tag, NONE);
      if (smallest == null || set.size() < smallest.size()) {
        smallest = set;
      }
    }
    if (smallest != null) {
      return smallest;
    }
    if (!selector.anyTags().isEmpty()) {
      TreeSet<Long> union = new TreeSet<>();
      for (String tag : selector.anyTags()) {
        byTag.getOrDefault(tag, NONE).forEach(union::add);
      }
      return union.descendingSet();
    }
    return all;
  }

  /** The breadcrumb indexed at {@code seq}, or null when none is (a sequence number this index never gave). */
  public @Nullable Breadcrumb at(long seq) {
    return bySeq.get(seq);
  }

  private static void removeFrom(Map<String, SeqList> index, String key, long seq) {
    SeqList set = index.get(key);
    if (set != null) {
      set.remove(seq);
      if (set.size() == 0) {
        index.remove(key);
      }
    }
  }
}
