package dev.rcrt.core.spi;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.EmbeddingProvider;
import dev.rcrt.core.Selector;
import dev.rcrt.core.VectorSearch;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * {@link VectorSearch} over a process's {@link VectorIndex}, fed by an {@link EmbeddingIndexer}:
 * the query embedded once (cached), candidates taken from the index by schema and tags, then read
 * back from the store, so that a result is the record's current version, unexpired, matching the
 * whole filter, and never a record whose current version is not the one the vector came from.
 * Candidates are read back in order, a few more than still wanted at a time; when they leave fewer
 * than {@code nn}, more candidates are taken (4 times {@code nn}, at least 50, doubling up to the
 * whole index). The first search starts an indexer that embeds on demand, and waits until the
 * index holds what the store held when it began: the vectors kept elsewhere (a table, read into an
 * index that is empty until then) and the records queued until then, at most {@link #FIRST_WAIT}
 * and not past a failed embedding batch (then it answers from what the index holds; its own query,
 * if the provider is down, fails at once); not when the caller waited with {@link #awaitIndexed}
 * first, with a bound of its own.
 * Thread-safe.
 */
public final class IndexedVectorSearch implements VectorSearch {
  /** The longest the first search waits for the index to hold what the store held before it: 2 minutes. */
  public static final Duration FIRST_WAIT = Duration.ofMinutes(2);

  private final EmbeddingIndexer indexer;
  private final VectorIndex index;
  private final Function<Collection<String>, Map<String, Breadcrumb>> reader;
  private final CatchUp catchUp;
  private final Object firstWait = new Object();
  /** The first search's wait is over (see {@link #awaitFirstIndex()}). */
  private volatile boolean warm;

  /**
   * Waits for vectors kept elsewhere (a table) to reach the index: {@link #awaitStarted} before the
   * indexer is waited for, {@link #await} after.
   */
  @FunctionalInterface
  public interface CatchUp {
    /**
     * Waits until the index holds every vector readable when called.
     *
     * @return false when {@code timeout} passed first
     */
    boolean await(Duration timeout) throws InterruptedException;

    /**
     * Waits until the store's start is done: the index rebuilt from where the vectors are kept, and
     * the records found there without a vector handed to the indexer. Default: nothing to wait for.
     *
     * @return false when {@code timeout} passed first
     */
    default boolean awaitStarted(Duration timeout) throws InterruptedException {
      return true;
    }
  }

  /**
   * For an index the indexer's sink fills directly.
   *
   * @param reader the current, unexpired records among the given ids (absent ones left out), read
   *     as the store's other searches read
   */
  public IndexedVectorSearch(EmbeddingIndexer indexer, VectorIndex index, Function<Collection<String>, Map<String, Breadcrumb>> reader) {
    this(indexer, index, reader, timeout -> true);
  }

  /** For an index filled from where the sink writes; {@code catchUp} waits for it before and after the indexer. */
  public IndexedVectorSearch(
      EmbeddingIndexer indexer, VectorIndex index, Function<Collection<String>, Map<String, Breadcrumb>> reader, CatchUp catchUp) {
    this.indexer = Objects.requireNonNull(indexer, "indexer");
    this.index = Objects.requireNonNull(index, "index");
    this.reader = Objects.requireNonNull(reader, "reader");
    this.catchUp = Objects.requireNonNull(catchUp, "catchUp");
  }

  @Override
  public List<Breadcrumb> nearest(String query, int nn, Selector filter) {
    Objects.requireNonNull(query, "query");
    Objects.requireNonNull(filter, "filter");
    if (query.isBlank()) {
      throw new IllegalArgumentException("query is blank");
    }
    if (nn < 1) {
      throw new IllegalArgumentException("nn < 1: " + nn);
    }
    if (!warm) {
      awaitFirstIndex();
    }
    float[] q = indexer.embedQuery(query);
    int k = (int) Math.min(Math.max(50L, nn * 4L), Math.max(1, index.size()));
    while (true) {
      List<VectorIndex.Hit> hits = index.nearest(q, k, filter);
      List<Breadcrumb> out = new ArrayList<>(nn);
      // read back in order, a few more than still wanted at a time: most candidates are never read
      for (int from = 0; from < hits.size() && out.size() < nn; ) {
        int to = Math.min(hits.size(), from + (nn - out.size()) + 8);
        List<VectorIndex.Hit> chunk = hits.subList(from, to);
        List<String> ids = new ArrayList<>(chunk.size());
        chunk.forEach(h -> ids.add(h.id()));
        Map<String, Breadcrumb> current = reader.apply(ids);
        for (VectorIndex.Hit h : chunk) {
          Breadcrumb b = current.get(h.id());
          if (b != null && b.version() == h.version() && filter.matches(b) && out.size() < nn) {
            out.add(b);
          }
        }
        from = to;
      }
      if (out.size() == nn || hits.size() < k || k >= index.size()) {
        return List.copyOf(out);
      }
      k = (int) Math.min((long) k * 2, index.size());
    }
  }

  @Override
  public long pending() {
    return indexer.pending();
  }

  /**
   * Waits for the vectors kept elsewhere first (which also hands the indexer what the store's
   * start found without a vector), then for the indexer, then for its vectors to reach the index.
   * A caller that waited so, whatever the outcome, has set its own bound: the first search after
   * it does not wait again.
   */
  @Override
  public boolean awaitIndexed(Duration timeout) throws InterruptedException {
    try {
      return awaitAll(timeout, false);
    } finally {
      warm = true;
    }
  }

  /** The store's start, then the indexer ({@code untilAFailure}: not past a failed batch), then the vectors it wrote. */
  private boolean awaitAll(Duration within, boolean untilAFailure) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    return catchUp.awaitStarted(within)
        && (untilAFailure ? indexer.awaitIndexedWhileEmbeddingWorks(left(deadline)) : indexer.awaitIndexed(left(deadline)))
        && catchUp.await(left(deadline));
  }

  /**
   * Before the first answer: waits for the index to hold what the store held when the search
   * began (an index read from a table is empty until it is rebuilt), at most {@link #FIRST_WAIT},
   * and not past a failed embedding batch. Searches that arrive meanwhile wait for the same.
   */
  private void awaitFirstIndex() {
    indexer.start();
    synchronized (firstWait) {
      if (warm) {
        return;
      }
      try {
        awaitAll(FIRST_WAIT, true);
        warm = true;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt(); // the next search waits again
      }
    }
  }

  private static Duration left(long deadline) {
    return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
  }

  /**
   * The store's provider; a call with one text (a query) goes through the same cache as this
   * search's queries, so that an agent's turn embeds its message once for both.
   */
  @Override
  public Optional<EmbeddingProvider> provider() {
    return Optional.of(queries);
  }

  private final EmbeddingProvider queries = new EmbeddingProvider() {
    @Override
    public String model() {
      return indexer.provider().model();
    }

    @Override
    public int dimensions() {
      return indexer.provider().dimensions();
    }

    @Override
    public int maxBatchSize() {
      return indexer.provider().maxBatchSize();
    }

    @Override
    public List<float[]> embed(List<String> texts) {
      return texts.size() == 1 ? List.of(indexer.embedQuery(texts.get(0)).clone()) : indexer.provider().embed(texts);
    }
  };
}
