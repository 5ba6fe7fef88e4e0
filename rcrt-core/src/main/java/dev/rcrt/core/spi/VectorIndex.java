package dev.rcrt.core.spi;

import dev.rcrt.core.Selector;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A process's index of record vectors, searched by {@link IndexedVectorSearch}. Each entry is one
 * record version's unit vector with the schema and tags of that version, so that a search can keep
 * to a schema and tags before ranking. Implementations are thread-safe.
 */
public interface VectorIndex {

  /** One record version's vector. */
  record Entry(String id, long version, @Nullable String schemaName, Set<String> tags, float[] vector) {
    /** Copies the tags. */
    public Entry {
      tags = Set.copyOf(tags);
    }

    /** Whether this entry may match {@code filter}: its schema name, all-tags and any-tags conditions (not its context conditions). */
    public boolean prefilter(Selector filter) {
      if (filter.schemaName() != null && !filter.schemaName().equals(schemaName)) {
        return false;
      }
      if (!tags.containsAll(filter.allTags())) {
        return false;
      }
      return filter.anyTags().isEmpty() || filter.anyTags().stream().anyMatch(tags::contains);
    }
  }

  /** A candidate: a record version and its cosine similarity to the query, -1 to 1. */
  record Hit(String id, long version, float score) {}

  /** Adds or replaces {@code entry.id()}'s vector, unless the index holds a later version of it. */
  void put(Entry entry);

  /** Removes {@code id}'s vector, if any. */
  void remove(String id);

  /**
   * At most {@code k} entries passing {@code filter}'s schema and tag conditions, most similar to
   * {@code query} (a unit vector) first.
   */
  List<Hit> nearest(float[] query, int k, Selector filter);

  /** How many vectors the index holds. */
  int size();
}
