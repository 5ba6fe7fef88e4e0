package dev.rcrt.core;

import org.jspecify.annotations.Nullable;

/**
 * An {@link EmbeddingProvider} could not embed: {@link EmbeddingErrorCode#EMBEDDING_UNAVAILABLE}
 * (retriable) or {@link EmbeddingErrorCode#EMBEDDING_FAILED}. Messages name the model and never
 * carry the provider's credentials.
 */
public class EmbeddingException extends RcrtException {
  private static final long serialVersionUID = 1L;

  private final EmbeddingErrorCode errorCode;

  /**
   * @param code what went wrong; its retriability is the exception's
   * @param message what failed, where, and what to do; not null
   * @param cause the underlying failure, or null
   */
  public EmbeddingException(EmbeddingErrorCode code, String message, @Nullable Throwable cause) {
    super(code.code(), message, code.retriable(), cause);
    this.errorCode = code;
  }

  /** The typed code. */
  public EmbeddingErrorCode errorCode() {
    return errorCode;
  }
}
