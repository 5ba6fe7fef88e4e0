package dev.rcrt.core.internal;

import dev.rcrt.core.Selector;
import dev.rcrt.core.spi.VectorIndex;
import dev.rcrt.core.spi.Vectors;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Exact nearest-neighbour search: every entry that passes the filter's schema and tags is compared
 * with the query, and the best {@code k} kept in a heap. A search costs one dot product per entry
 * ({@code dimensions} multiply-adds); entries are kept in one array list, removed by swapping with
 * the last. Memory: about {@code 4 × dimensions} bytes per entry plus its id and tags. Reads share
 * a lock, writes take it alone.
 */
public final class ExactVectorIndex implements VectorIndex {
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private final List<Entry> entries = new ArrayList<>();
  private final Map<String, Integer> positions = new HashMap<>();

  @Override
  public void put(Entry entry) {
    lock.writeLock().lock();
    try {
      Integer at = positions.get(entry.id());
      if (at == null) {
        positions.put(entry.id(), entries.size());
        entries.add(entry);
      } else if (entries.get(at).version() <= entry.version()) {
        entries.set(at, entry);
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  @Override
  public void remove(String id) {
    lock.writeLock().lock();
    try {
      Integer at = positions.remove(id);
      if (at == null) {
        return;
      }
      Entry last = entries.remove(entries.size() - 1);
      if (at < entries.size()) {
        entries.set(at, last);
        positions.put(last.id(), at);
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  @Override
  public List<Hit> nearest(float[] query, int k, Selector filter) {
    PriorityQueue<Hit> best = new PriorityQueue<>(Math.max(1, k), Comparator.comparingDouble(Hit::score));
    boolean everything = filter.schemaName() == null && filter.allTags().isEmpty() && filter.anyTags().isEmpty();
    lock.readLock().lock();
    try {
      for (Entry e : entries) {
        if (!everything && !e.prefilter(filter)) {
          continue;
        }
        float score = Vectors.dot(query, e.vector());
        if (best.size() < k) {
          best.add(new Hit(e.id(), e.version(), score));
        } else if (score > best.peek().score()) {
          best.poll();
          best.add(new Hit(e.id(), e.version(), score));
        }
      }
    } finally {
      lock.readLock().unlock();
    }
    List<Hit> out = new ArrayList<>(best);
    out.sort(Comparator.comparingDouble((Hit h) -> -h.score()).thenComparing(Hit::id));
    return out;
  }

  @Override
  public int size() {
    lock.readLock().lock();
    try {
      return entries.size();
    } finally {
      lock.readLock().unlock();
    }
  }
}
