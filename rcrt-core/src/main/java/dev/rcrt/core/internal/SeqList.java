package dev.rcrt.core.internal;

import java.util.Arrays;
import java.util.BitSet;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * Write sequences in ascending order, for one index key. Sequences only grow, so adding is an
 * append; removing marks the slot dead (found by binary search) and the array is compacted when
 * half of it is dead. Iteration runs newest first and skips dead slots. Not thread-safe.
 */
final class SeqList implements Iterable<Long> {
  private long[] seqs = new long[2];
  private final BitSet dead = new BitSet();
  private int size;
  private int removed;

  /** Appends {@code seq}, which must be greater than every sequence added before. */
  void add(long seq) {
    if (size == seqs.length) {
      seqs = Arrays.copyOf(seqs, size * 2);
    }
    seqs[size++] = seq;
  }

  /** Removes {@code seq} if present. */
  void remove(long seq) {
    int i = Arrays.binarySearch(seqs, 0, size, seq);
    if (i >= 0 && !dead.get(i)) {
      dead.set(i);
      removed++;
      if (removed * 2 > size) {
        compact();
      }
    }
  }

  /** Live sequences. */
  int size() {
    return size - removed;
  }

  private void compact() {
    int live = 0;
    for (int i = 0; i < size; i++) {
      if (!dead.get(i)) {
        seqs[live++] = seqs[i];
      }
    }
    size = live;
    removed = 0;
    dead.clear();
    if (seqs.length > 8 && size < seqs.length / 4) {
      seqs = Arrays.copyOf(seqs, Math.max(2, size * 2));
    }
  }

  /** Newest first. */
  @Override
  public Iterator<Long> iterator() {
    return new Iterator<>() {
      int next = advance(size - 1);

      private int advance(int from) {
        int i = from;
        while (i >= 0 && dead.get(i)) {
          i--;
        }
        return i;
      }

      @Override
      public boolean hasNext() {
        return next >= 0;
      }

      @Override
      public Long next() {
        if (next < 0) {
          throw new NoSuchElementException();
        }
        long seq = seqs[next];
        next = advance(next - 1);
        return seq;
      }
    };
  }
}
