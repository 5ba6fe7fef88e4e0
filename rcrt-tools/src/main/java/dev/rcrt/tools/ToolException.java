package dev.rcrt.tools;

import dev.rcrt.core.RcrtException;
import org.jspecify.annotations.Nullable;

/**
 * A tool could not be resolved, loaded or run, or its input or output broke its schema.
 *
 * <p>Inside the {@link ToolRunner} these never escape: they become a {@code tool.response.v1} with
 * {@code status: "error"}, whose {@code error_code} is {@link #code()}: one of {@link
 * ToolErrorCode}'s, whose Javadoc says when each is used and whether it is retriable. A handler
 * may throw one with any of those codes (most often {@link ToolErrorCode#TOOL_FAILED}), or with a
 * code of its own, which is not retriable.
 */
public class ToolException extends RcrtException {
  private static final long serialVersionUID = 1L;

  /**
   * @param code what kind of failure; retriable as the code says
   * @param message what, where, and what to do; never a secret value
   * @param cause the underlying failure, or null
   */
  public ToolException(ToolErrorCode code, String message, @Nullable Throwable cause) {
    super(code.code(), message, code.retriable(), cause);
  }

  /** @see #ToolException(ToolErrorCode, String, Throwable) */
  public ToolException(ToolErrorCode code, String message) {
    this(code, message, null);
  }

  /**
   * For a wire code read back from a record, or a host's own: retriable as {@link ToolErrorCode}
   * says for its codes, not retriable for others.
   *
   * @param code a {@link ToolErrorCode#code()}, or a code of the host's own
   * @param message what, where, and what to do; never a secret value
   * @param cause the underlying failure, or null
   */
  public ToolException(String code, String message, @Nullable Throwable cause) {
    super(code, message, ToolErrorCode.of(code).map(ToolErrorCode::retriable).orElse(false), cause);
  }

  /** @see #ToolException(String, String, Throwable) */
  public ToolException(String code, String message) {
    this(code, message, null);
  }
}
