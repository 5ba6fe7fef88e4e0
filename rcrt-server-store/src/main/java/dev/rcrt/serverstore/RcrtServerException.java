package dev.rcrt.serverstore;

import dev.rcrt.core.RcrtException;
import org.jspecify.annotations.Nullable;

/**
 * The RCRT server could not do what a store call asked. Codes: {@code store_unavailable} (the
 * server could not be reached, timed out, or answered 5xx; retriable), {@code store_unauthorized}
 * (the server refused the token, 401/403) and {@code store_failed} (any other answer the SDK
 * cannot map, such as a 400). The message names the call, the HTTP status and the server's text;
 * it never contains the token.
 */
public final class RcrtServerException extends RcrtException {
  private static final long serialVersionUID = 1L;

  /**
   * @param code {@code store_unavailable}, {@code store_unauthorized} or {@code store_failed}
   */
  public RcrtServerException(String code, String message, boolean retriable, @Nullable Throwable cause) {
    super(code, message, retriable, cause);
  }
}
