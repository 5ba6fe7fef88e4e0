package dev.rcrt.llm;

import dev.rcrt.core.RcrtException;
import org.jspecify.annotations.Nullable;

/**
 * Talking to the model failed. Codes:
 *
 * <ul>
 *   <li>{@code llm_http_error}: a non-2xx status ({@link #status()}); retriable for 429 and 5xx;
 *   <li>{@code llm_provider_error}: a 2xx answer carrying an {@code error} object;
 *   <li>{@code llm_bad_response}: an answer that is not a chat completion;
 *   <li>{@code llm_timeout}: no answer within the request timeout (retriable);
 *   <li>{@code llm_unreachable}: the connection failed (retriable);
 *   <li>{@code llm_cancelled}: the calling thread was interrupted while waiting; its interrupt
 *       status is set again and the request is abandoned (not retried);
 *   <li>{@code llm_config_invalid}: the client cannot be built as configured, such as a base URL
 *       that is not an absolute http(s) URL (from {@code build()}, before any request).
 * </ul>
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
   * @param code one of the codes listed on this class
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
