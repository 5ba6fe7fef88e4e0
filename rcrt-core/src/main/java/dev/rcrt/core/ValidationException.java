package dev.rcrt.core;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Input does not have the required shape: a malformed selector, a breadcrumb file that is not
 * JSON, a value that violates a JSON Schema. Code {@code "validation"}; not retriable.
 *
 * <p>{@link #violations()} lists each problem as {@code "<JSON pointer>: <what is wrong>"}
 * (for example {@code "/value: expected number, found string"}); the message joins them.
 */
public class ValidationException extends RcrtException {
  private static final long serialVersionUID = 1L;

  /** Each problem, {@code "<JSON pointer>: <what is wrong>"}. */
  private final List<String> violations;

  /** @param message what is invalid, where, and what to do */
  public ValidationException(String message) {
    this(message, List.of(), null);
  }

  /**
   * @param message what is invalid, where, and what to do
   * @param violations each problem, pointer first; copied
   * @param cause the parser or validator failure, or null
   */
  public ValidationException(String message, List<String> violations, @Nullable Throwable cause) {
    super("validation", message, false, cause);
    this.violations = List.copyOf(violations);
  }

  /** Each problem found, as {@code "<JSON pointer>: <message>"}; never null, possibly empty. */
  public List<String> violations() {
    return violations;
  }
}
