package dev.rcrt.core;

import org.jspecify.annotations.Nullable;

/**
 * A family's error code: the stable wire text an {@link RcrtException#code()} carries, and whether
 * the same call may succeed if repeated unchanged. Each family's codes are an enum implementing
 * this ({@code ToolErrorCode}, {@code LlmErrorCode}, {@link StoreErrorCode}).
 */
public interface ErrorCode {
  /** The wire code, lower snake case, such as {@code tool_timeout}. */
  String code();

  /** Whether the same call, unchanged, may succeed later (usually; an exception may say otherwise). */
  boolean retriable();

  /** Whether {@code code} is this code's wire text. */
  default boolean is(@Nullable String code) {
    return code().equals(code);
  }
}
