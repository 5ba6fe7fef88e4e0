package dev.rcrt.core.internal;

import dev.rcrt.core.Selector;
import dev.rcrt.core.spi.VectorIndex;
import dev.rcrt.core.spi.Vectors;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.jspecify.annotations.Nullable;

/**
 * Exact nearest-neighbour search: every entry that passes the filter's schema and tags is compared
 * with the query, and the best {@code k} kept in a heap. The vectors live in one contiguous {@code
 * float[]} (slot {@code i} at {@code i × dimensions}), so a search streams through memory instead of
 * chasing one array per record; a removed entry's slot is filled with the last one. A search costs
 * one dot product per entry; memory is {@code 4 × dimensions} bytes per entry plus its id and tags.
 * Reads share a lock, writes take it alone.
 */
public final class ExactVectorIndex implements VectorIndex {
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private final Map<String, Integer> slots = new HashMap<>();
  private int dimensions = -1;
  private float[] data = new float[0];
  private String[] ids = new String[0];
  private long[] versions = new long[0];
  private @Nullable String[] schemas = new String[0];
  private Set<?>[] tags = new Set<?>[0];
  private int size;

  @Override
  public void put(Entry entry) {
    lock.writeLock().lock();
    try {
      float[] v = entry.vector();
      if (dimensions < 0) {
        dimensions = v.length;
      } else if (v.length != dimensions) {
        throw new IllegalArgumentException("vector of " + v.length + " dimensions in an index of " + dimensions);
      }
      Integer at = slots.get(entry.id());
      int slot;
      if (at == null) {
        grow();
        slot = size++;
        slots.put(entry.id(), slot);
      } else if (versions[at] <= entry.version()) {
        slot = at;
      } else {
        return;
      }
      ids[slot] = entry.id();
      versions[slot] = entry.version();
      schemas[slot] = entry.schemaName();
      tags[slot] = entry.tags();
      System.arraycopy(v, 0, data, slot * dimensions, dimensions);
    } finally {
      lock.writeLock().unlock();
    }
  }

  private void grow() {
    if (size < ids.length) {
      return;
    }
    int capacity = Math.max(16, ids.length + (ids.length >> 1));
    data = Arrays.copyOf(data, capacity * dimensions);
    ids = Arrays.copyOf(ids, capacity);
    versions = Arrays.copyOf(versions, capacity);
    schemas = Arrays.copyOf(schemas, capacity);
    tags = Arrays.copyOf(tags, capacity);
  }

  @Override
  public void remove(String id) {
    lock.writeLock().lock();
    try {
      Integer at = slots.remove(id);
      if (at == null) {
        return;
      }
      int last = --size;
      if (at != last) {
        ids[at] = ids[last];
        versions[at] = versions[last];
        schemas[at] = schemas[last];
        tags[at] = tags[last];
        System.arraycopy(data, last * dimensions, data, at * dimensions, dimensions);
        slots.put(ids[at], at);
      }
      ids[last] = ""; // let the removed entry's id and tags be collected
      schemas[last] = null;
      tags[last] = Set.of();
    } finally {
      lock.writeLock().unlock();
    }
  }

  @Override
  public List<Hit> nearest(float[] query, int k, Selector filter) {
    record Found(int slot, float score) {}
    PriorityQueue<Found> best = new PriorityQueue<>(Math.max(1, k), Comparator.comparingDouble(Found::score));
    boolean everything = filter.schemaName() == null && filter.allTags().isEmpty() && filter.anyTags().isEmpty();
    lock.readLock().lock();
    try {
      if (size == 0 || query.length != dimensions) {
        return List.of();
      }
      float floor = Float.NEGATIVE_INFINITY;
      for (int slot = 0; slot < size; slot++) {
        if (!everything && !passes(slot, filter)) {
          continue;
        }
        float score = Vectors.dot(query, data, slot * dimensions);
        if (best.size() < k) {
          best.add(new Found(slot, score));
          if (best.size() == k) {
            floor = best.peek().score();
          }
        } else if (score > floor) {
          best.poll();
          best.add(new Found(slot, score));
          floor = best.peek().score();
        }
      }
      List<Found> sorted = new ArrayList<>(best);
      sorted.sort(Comparator.comparingDouble((Found f) -> -f.score()).thenComparing(f -> ids[f.slot()]));
      List<Hit> out = new ArrayList<>(sorted.size());
      for (Found f : sorted) {
        out.add(new Hit(ids[f.slot()], versions[f.slot()], f.score()));
      }
      return out;
    } finally {
      lock.readLock().unlock();
    }
  }

  private boolean passes(int slot, Selector filter) {
    if (filter.schemaName() != null && !filter.schemaName().equals(schemas[slot])) {
      return false;
    }
    Set<?> t = tags[slot];
    if (!t.containsAll(filter.allTags())) {
      return false;
    }
    return filter.anyTags().isEmpty() || filter.anyTags().stream().anyMatch(t::contains);
  }

  @Override
  public int size() {
    lock.readLock().lock();
    try {
      return size;
    } finally {
      lock.readLock().unlock();
    }
  }
}
