package dev.rcrt.core;

import org.jspecify.annotations.Nullable;

/**
 * The one unchecked base of every failure the SDK reports.
 *
 * <p>Each family has its own subclass ({@link NotFoundException}, {@link ConflictException},
 * {@link ValidationException}, {@link HintException}, and in the other modules the tool,
 * LLM, agent and store failures). Every instance carries a stable, machine-readable {@link #code()} (lower snake case,
 * for example {@code "conflict"}) and says through {@link #isRetriable()} whether the same call may
 * succeed if repeated unchanged.
 *
 * <p>Messages say what failed, where, and what to do. They never contain secret values.
 */
public abstract class RcrtException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The stable code, see {@link #code()}. */
  private final String code;
  /** See {@link #isRetriable()}. */
  private final boolean retriable;

  /**
   * @param code stable machine-readable code, lower snake case
   * @param message what, where and what to do
   * @param retriable whether repeating the same call unchanged may succeed
   * @param cause the underlying failure, or null
   */
  protected RcrtException(String code, String message, boolean retriable, @Nullable Throwable cause) {
    super(java.util.Objects.requireNonNull(message, "message"), cause);
    this.code = java.util.Objects.requireNonNull(code, "code");
    this.retriable = retriable;
  }

  /** What failed, where, and what to do; never null (every constructor requires it). */
  @Override
  public String getMessage() {
    return java.util.Objects.requireNonNull(super.getMessage());
  }

  /** The stable machine-readable code of this failure, for example {@code "not_found"}. */
  public String code() {
    return code;
  }

  /** Whether repeating the same call unchanged may succeed (a timeout, a rate limit, a 5xx). */
  public boolean isRetriable() {
    return retriable;
  }
}
