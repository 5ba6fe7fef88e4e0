package dev.rcrt.core;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Search by meaning: RCRT's vector search ({@code GET /breadcrumbs/search?q=&nn=}), which ranks
 * breadcrumbs by the cosine similarity of the query's embedding and theirs. A store offers it
 * through {@link BreadcrumbStore#vectorSearch()} when it has embeddings: the RCRT server's own, or,
 * for {@link InMemoryBreadcrumbStore} and the PostgreSQL store, those of the {@link
 * EmbeddingProvider} it was built with, kept by its {@link EmbeddingPolicy}.
 *
 * <p>Records are embedded after they are written, off the writer's thread; until then a new or
 * changed record is not found by meaning ({@link #pending()} says how many wait, {@link
 * #awaitIndexed(Duration)} waits for them). A record that was updated or deleted is never answered
 * by the vector of an earlier version. Results are read like every other search: expired records
 * are left out, and the {@code filter} applies to the current record.
 *
 * <p>Implementations must be thread-safe.
 */
public interface VectorSearch {

  /**
   * The breadcrumbs nearest in meaning to {@code query}, nearest first. The SDK's stores answer
   * their first search (per store object) only once the index holds what the store held when it
   * began, at most 2 minutes and not past a failed embedding batch, unless the caller waited with
   * {@link #awaitIndexed} first: a short process never answers from an index still being built.
   *
   * @param query the text to embed and compare; not blank
   * @param nn how many neighbours at most, 1 or more
   * @param filter narrows the result further (schema, tags, context conditions); {@link
   *     Selector#all()} for none
   * @return at most {@code nn} records; never null
   * @throws RcrtException when the search fails (the store is unreachable, the query is refused);
   *     an {@link EmbeddingException} when the query could not be embedded
   */
  List<Breadcrumb> nearest(String query, int nn, Selector filter);

  /**
   * How many written records wait to be embedded and indexed in this process: the index's lag, in
   * records. Default 0, for a store that embeds as it writes (the RCRT server).
   */
  default long pending() {
    return 0;
  }

  /**
   * Waits until every record written through this process before the call is embedded and
   * searchable (or was skipped by the policy), at most {@code timeout}. On a store whose processes
   * share their vectors (PostgreSQL), it also waits for the records the store found without a
   * current vector when it started, such as those a writer stopped before embedding: a short
   * process searches the whole store, not the part embedded so far. The default, for a store that
   * embeds as it writes, returns true at once.
   *
   * @return true when caught up, false when the timeout passed first (the embedding provider may
   *     be failing: see {@link #pending()} and the log)
   * @throws InterruptedException when interrupted while waiting
   */
  default boolean awaitIndexed(Duration timeout) throws InterruptedException {
    return true;
  }

  /**
   * The provider this search embeds queries with, when it runs in this process; empty for a store
   * that embeds elsewhere (the RCRT server). Agents use it to rank tools by meaning.
   */
  default Optional<EmbeddingProvider> provider() {
    return Optional.empty();
  }
}
