package dev.rcrt.postgres;

import dev.rcrt.core.RcrtException;
import org.jspecify.annotations.Nullable;

/**
 * The database could not do what a store call asked. Codes: {@code store_unavailable} (the
 * connection failed or the server is shutting down; retriable) and {@code store_failed} (any other
 * database error). The message names the call and the SQL state; the cause is the driver's
 * {@link java.sql.SQLException}.
 */
public final class PostgresStoreException extends RcrtException {
  private static final long serialVersionUID = 1L;

  /**
   * @param code {@code store_unavailable} or {@code store_failed}
   */
  public PostgresStoreException(String code, String message, boolean retriable, @Nullable Throwable cause) {
    super(code, message, retriable, cause);
  }
}
