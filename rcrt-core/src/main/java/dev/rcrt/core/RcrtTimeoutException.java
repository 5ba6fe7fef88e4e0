package dev.rcrt.core;

import java.time.Duration;

/** An operation did not finish within its time limit. Code {@code "timeout"}; retriable. */
public class RcrtTimeoutException extends RcrtException {
  private static final long serialVersionUID = 1L;

  /** The limit that passed. */
  private final Duration timeout;

  /**
   * @param what the operation that timed out, for example {@code "tool 'timer'"}
   * @param timeout the limit that was exceeded
   */
  public RcrtTimeoutException(String what, Duration timeout) {
    super("timeout", what + " timed out after " + timeout.toMillis() + " ms", true, null);
    this.timeout = timeout;
  }

  /** The limit that was exceeded. */
  public Duration timeout() {
    return timeout;
  }
}
