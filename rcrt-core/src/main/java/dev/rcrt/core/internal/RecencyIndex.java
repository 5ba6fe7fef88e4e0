package dev.rcrt.core.internal;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.Selector;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Breadcrumbs by write sequence (newest = highest), with secondary indexes by tag and by schema
 * name, so that a search walks only the smallest candidate set instead of every record.
 *
 * <p>Not thread-safe: the owning store guards it with its lock.
 */
public final class RecencyIndex {
  private final NavigableMap<Long, Breadcrumb> bySeq = new TreeMap<>();
  private final Map<String, NavigableSet<Long>> byTag = new HashMap<>();
  private final Map<String, NavigableSet<Long>> bySchema = new HashMap<>();

  /** Indexes {@code breadcrumb} under write sequence {@code seq}. */
  public void add(long seq, Breadcrumb breadcrumb) {
    bySeq.put(seq, breadcrumb);
    for (String tag : breadcrumb.tags()) {
      byTag.computeIfAbsent(tag, t -> new TreeSet<>()).add(seq);
    }
    if (breadcrumb.schemaName() != null) {
      bySchema.computeIfAbsent(breadcrumb.schemaName(), s -> new TreeSet<>()).add(seq);
    }
  }

  /** Removes the entry written at {@code seq}; {@code breadcrumb} is what was indexed there. */
  public void remove(long seq, Breadcrumb breadcrumb) {
    bySeq.remove(seq);
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
    NavigableSet<Long> smallest = null;
    if (selector.schemaName() != null) {
      smallest = bySchema.getOrDefault(selector.schemaName(), Collections.emptyNavigableSet());
    }
    for (String tag : selector.allTags()) {
      NavigableSet<Long> set = byTag.getOrDefault(tag, Collections.emptyNavigableSet());
      if (smallest == null || set.size() < smallest.size()) {
        smallest = set;
      }
    }
    if (smallest != null) {
      return smallest.descendingSet();
    }
    if (!selector.anyTags().isEmpty()) {
      NavigableSet<Long> union = new TreeSet<>();
      for (String tag : selector.anyTags()) {
        union.addAll(byTag.getOrDefault(tag, Collections.emptyNavigableSet()));
      }
      return union.descendingSet();
    }
    return bySeq.descendingKeySet();
  }

  /** The breadcrumb indexed at {@code seq}. */
  public Breadcrumb at(long seq) {
    return bySeq.get(seq);
  }

  private static void removeFrom(Map<String, NavigableSet<Long>> index, String key, long seq) {
    NavigableSet<Long> set = index.get(key);
    if (set != null) {
      set.remove(seq);
      if (set.isEmpty()) {
        index.remove(key);
      }
    }
  }
}
