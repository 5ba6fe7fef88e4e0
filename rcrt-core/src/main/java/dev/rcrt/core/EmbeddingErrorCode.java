package dev.rcrt.core;

/** The codes an {@link EmbeddingException} carries. */
public enum EmbeddingErrorCode implements ErrorCode {
  /** The model could not be reached, loaded or asked now (network, rate limit, interruption); asking again may succeed. */
  EMBEDDING_UNAVAILABLE("embedding_unavailable", true),
  /** The model refused the texts or answered something unusable (a wrong count or length of vectors). */
  EMBEDDING_FAILED("embedding_failed", false);

  private final String code;
  private final boolean retriable;

  EmbeddingErrorCode(String code, boolean retriable) {
    this.code = code;
    this.retriable = retriable;
  }

  /** The wire code, such as {@code embedding_unavailable}. */
  @Override
  public String code() {
    return code;
  }

  /** Whether the same call may succeed later. */
  @Override
  public boolean retriable() {
    return retriable;
  }

  @Override
  public String toString() {
    return code;
  }
}
