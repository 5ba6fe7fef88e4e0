package dev.rcrt.core;

import java.util.List;

/**
 * Turns texts into vectors: the embedding model behind search by meaning ({@link VectorSearch}).
 * RCRT's own server embeds with all-MiniLM-L6-v2 (384 dimensions, L2-normalised); the SDK ships
 * that model in process ({@code rcrt-embeddings-minilm}), a client for any OpenAI-compatible
 * {@code /v1/embeddings} endpoint ({@code rcrt-llm}) and an adapter for any LangChain4j {@code
 * EmbeddingModel} ({@code rcrt-langchain4j}).
 *
 * <p>A store given a provider ({@code InMemoryBreadcrumbStore.Builder.embeddings}, {@code
 * PostgresBreadcrumbStore.Builder.embeddings}) embeds records by its {@link EmbeddingPolicy} on a
 * background thread, in batches of at most {@link #maxBatchSize()} texts, and embeds each search
 * query on the caller's thread.
 *
 * <p>Implementations must be thread-safe. Vectors need not be normalised: stores normalise them to
 * unit length and rank by cosine similarity.
 */
public interface EmbeddingProvider {

  /**
   * The model's name, such as {@code all-minilm-l6-v2-q} or {@code text-embedding-3-small}. Stores
   * keep it beside each vector and re-embed records whose vectors came from another model.
   */
  String model();

  /** The length of every vector this provider returns, such as 384. */
  int dimensions();

  /** The most texts {@link #embed} is given at once; default 32. */
  default int maxBatchSize() {
    return 32;
  }

  /**
   * The vectors of {@code texts}, one per text in the same order, each {@link #dimensions()} long.
   * May block (a model run, an HTTP call); interruption ends it with {@code embedding_unavailable}.
   *
   * @param texts 1 to {@link #maxBatchSize()} texts, none null; empty texts are allowed
   * @return a new list of new arrays, never null; the caller may keep and change them
   * @throws EmbeddingException {@code embedding_unavailable} (retriable: the model could not be
   *     reached or loaded, it was rate limited or interrupted) or {@code embedding_failed} (it
   *     refused these texts or answered something unusable)
   */
  List<float[]> embed(List<String> texts);
}
