package dev.rcrt.core;

import java.util.List;

/**
 * Search by meaning: RCRT's vector search ({@code GET /breadcrumbs/search?q=&nn=}), which ranks
 * breadcrumbs by the distance between the query's embedding and theirs. A store offers it through
 * {@link BreadcrumbStore#vectorSearch()} when it has embeddings; the SDK computes none itself.
 *
 * <p>Implementations must be thread-safe.
 */
public interface VectorSearch {

  /**
   * The breadcrumbs nearest in meaning to {@code query}, nearest first.
   *
   * @param query the text to embed and compare; not blank
   * @param nn how many neighbours at most, 1 or more
   * @param filter narrows the result further (schema, tags, context conditions); {@link
   *     Selector#all()} for none
   * @return at most {@code nn} records; never null
   * @throws RcrtException when the search fails (the store is unreachable, the query is refused)
   */
  List<Breadcrumb> nearest(String query, int nn, Selector filter);
}
