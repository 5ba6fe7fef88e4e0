package dev.rcrt.core;

import org.jspecify.annotations.Nullable;

/**
 * An {@code llm_hints} rule failed while a view was being built (a template that does not render,
 * a jq program that fails on this context). Code {@code "hint_failed"}; not retriable. Malformed
 * hints are reported earlier, as {@link ValidationException}s, when they are compiled.
 */
public class HintException extends RcrtException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message the breadcrumb, the rule and what went wrong
   * @param cause the engine's failure, or null
   */
  public HintException(String message, @Nullable Throwable cause) {
    super("hint_failed", message, false, cause);
  }
}
