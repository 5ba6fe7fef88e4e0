package dev.rcrt.llm;

import dev.rcrt.core.RcrtException;
import org.jspecify.annotations.Nullable;

/**
 * Talking to the model failed. {@link #code()} is one of {@link LlmErrorCode}'s, whose Javadoc says
 * when each is used; {@link #isRetriable()} says whether this failure may pass if asked again.
 *
 * <p>The message carries the provider's own message where there is one, and never the API key.
 */
public class LlmException extends RcrtException {
  private static final long serialVersionUID = 1L;

  /** The HTTP status, or 0 when there was no answer. */
  private final int status;
  /** The provider's own error message, or null. */
  private final @Nullable String providerMessage;

  /**
   * @param code what kind of failure
   * @param message what failed, where, and what to do
   * @param status the HTTP status, or 0 when there was none
   * @param providerMessage the provider's {@code error.message}, or null
   * @param retriable whether the same request may succeed later
   * @param cause the underlying failure, or null
   */
  public LlmException(
      LlmErrorCode code, String message, int status, @Nullable String providerMessage, boolean retriable, @Nullable Throwable cause) {
    this(code.code(), message, status, providerMessage, retriable, cause);
  }

  /**
   * For a code read back from a record (an agent's error response) or a host client's own.
   *
   * @param code an {@link LlmErrorCode#code()} or a code of the host's own
   * @param message what failed, where, and what to do
   * @param status the HTTP status, or 0 when there was none
   * @param providerMessage the provider's {@code error.message}, or null
   * @param retriable whether the same request may succeed later
   * @param cause the underlying failure, or null
   */
  public LlmException(
      String code,
      String message,
      int status,
      @Nullable String providerMessage,
      boolean retriable,
      @Nullable Throwable cause) {
    super(code, message, retriable, cause);
    this.status = status;
    this.providerMessage = providerMessage;
  }

  /** The HTTP status, or 0 when the failure happened before or without one. */
  public int status() {
    return status;
  }

  /** The provider's own error message, or null. */
  public @Nullable String providerMessage() {
    return providerMessage;
  }
}
