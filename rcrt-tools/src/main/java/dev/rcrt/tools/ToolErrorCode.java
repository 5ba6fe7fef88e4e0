package dev.rcrt.tools;

import dev.rcrt.core.ErrorCode;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The codes of {@link ToolException}, each with whether repeating the same call unchanged may
 * succeed. The {@linkplain #code() wire code} is what a {@code tool.response.v1} carries as {@code
 * error_code} (RCRT's responses carry none; the SDK adds it) and what {@link ToolException#code()}
 * returns; it never changes for a constant.
 */
public enum ToolErrorCode implements ErrorCode {
  /** No trusted tool breadcrumb has the requested name. */
  TOOL_NOT_FOUND("tool_not_found", false),
  /** The tool breadcrumb is malformed: a bad schema, no name, a broken example or spec. */
  TOOL_DEFINITION_INVALID("tool_definition_invalid", false),
  /**
   * No runtime for the implementation type (the message names the artifact that brings it), or no
   * handler registered for a builtin.
   */
  TOOL_UNSUPPORTED("tool_unsupported", false),
  /** The code could not be loaded: a missing module, export, code breadcrumb or image, no Docker daemon. */
  TOOL_LOAD_FAILED("tool_load_failed", false),
  /** A secret the tool needs is unknown to the resolver (the message names it, never a value). */
  TOOL_SECRET_MISSING("tool_secret_missing", false),
  /** The tool asked for a secret that neither its own record nor a trusted config grants it. */
  TOOL_SECRET_DENIED("tool_secret_denied", false),
  /** The trust policy refused: the requester, the tool's writer, or a write the tool attempted. */
  TOOL_UNTRUSTED("tool_untrusted", false),
  /** The tool needs something the host has not allowed: an image, a jar location, an internal address. */
  TOOL_CAPABILITY_DENIED("tool_capability_denied", false),
  /** The call needed approval and did not get it; it never runs. */
  TOOL_DENIED("tool_denied", false),
  /**
   * The call needs approval and waits for a decision record ({@code approval.request.v1} written);
   * it did not run, and its request stays unanswered (no response is recorded) until an {@code
   * approval.decision.v1} arrives or the approval request expires.
   */
  TOOL_APPROVAL_PENDING("tool_approval_pending", false),
  /**
   * The call's work goes on and has no result yet: a specialist agent's child run waits (for an
   * approval decision, a tool runner, or the process that holds it), the tool asked its user a
   * question that waits for an answer ({@link InputRequest}), or the tool's wait for its caller's
   * answer was interrupted (its caller stopping). Like {@link
   * #TOOL_APPROVAL_PENDING}, no response is recorded: the request stays open until its caller runs
   * it again ({@link ToolRunner#run(dev.rcrt.core.Breadcrumb, ToolDefinition, ToolHandler)}).
   */
  TOOL_WAITING("tool_waiting", false),
  /** The tool's breadcrumb changed after it was offered or pinned; that version was not run. */
  TOOL_CHANGED("tool_changed", false),
  /** The input broke the input schema (the message names the pointer), or holds a number beyond a double. */
  TOOL_INPUT_INVALID("tool_input_invalid", false),
  /** The output broke the output schema. */
  TOOL_OUTPUT_INVALID("tool_output_invalid", false),
  /** A response body or an output past its size limit. */
  TOOL_TOO_LARGE("tool_too_large", false),
  /** A JavaScript call allocated more than its {@code limits.memory_mb}. */
  TOOL_MEMORY_LIMIT("tool_memory_limit", false),
  /** The tool's endpoint could not be reached or dropped the connection (after the tool's own retries). */
  TOOL_UNREACHABLE("tool_unreachable", false),
  /** The tool itself failed: it threw, exited non-zero, answered with an error, or was not run by a runner that kept dying. */
  TOOL_FAILED("tool_failed", false),
  /** It ran past its time limit. */
  TOOL_TIMEOUT("tool_timeout", true);

  private static final Map<String, ToolErrorCode> BY_CODE =
      Arrays.stream(values()).collect(Collectors.toUnmodifiableMap(ToolErrorCode::code, Function.identity()));

  private final String code;
  private final boolean retriable;

  ToolErrorCode(String code, boolean retriable) {
    this.code = code;
    this.retriable = retriable;
  }

  /** The wire code, such as {@code tool_timeout}. */
  @Override
  public String code() {
    return code;
  }

  /** Whether the same call, unchanged, may succeed later. */
  @Override
  public boolean retriable() {
    return retriable;
  }

  /** The constant whose {@link #code()} is {@code code}; empty for a code a host made up. */
  public static Optional<ToolErrorCode> of(String code) {
    return Optional.ofNullable(BY_CODE.get(code));
  }

  @Override
  public String toString() {
    return code;
  }
}
