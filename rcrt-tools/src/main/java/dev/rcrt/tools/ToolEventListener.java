package dev.rcrt.tools;

import org.jspecify.annotations.Nullable;

/**
 * Observes every tool call of a {@link ToolRunner} on every path, in the manner of OkHttp's {@code
 * EventListener}: for metrics, tracing and audit. Methods are called on the calling thread in this
 * order: {@link #callStart}, {@link #toolResolved} (unless resolution failed), {@link
 * #inputValidated} (unless trust or approval refused the call, or the input is invalid), then for
 * an error response {@link #callDenied} if it was a refusal (trust, approval, or a capability the
 * host did not allow) and {@link #callFailed}, and always {@link #callEnd} last. Trust and approval
 * refusals are reported as they happen, before {@code callFailed}. While the tool runs, {@link
 * #callProgress} and {@link #callLog} report what it tells its caller, from the tool's thread.
 *
 * <p>Every method has an empty default, so a listener overrides only what it needs (the one place
 * this SDK gives an interface defaults: an observer with a dozen hooks would otherwise force empty
 * bodies on every implementer). A listener that throws is logged and ignored. Never passed a secret
 * value: responses are scrubbed before they reach listeners. Must be thread-safe.
 */
public interface ToolEventListener {

  /** The call entered the chain. */
  default void callStart(ToolRequest request) {}

  /** The tool was resolved and pinned to {@code tool}. */
  default void toolResolved(ToolRequest request, ToolDefinition tool) {}

  /**
   * The trust policy or approval refused the call; {@code code} is {@code tool_untrusted}, {@code
   * tool_denied} or {@code tool_capability_denied}.
   */
  default void callDenied(ToolRequest request, ToolDefinition tool, String code) {}

  /** The input passed the tool's input schema; the tool runs next. */
  default void inputValidated(ToolRequest request, ToolDefinition tool) {}

  /**
   * The tool reported progress ({@link ToolContext#progress}), after the runner's bounds: only
   * increasing values, at most 1,000 a call, the message scrubbed of secrets. Whoever called gets it
   * too where it takes progress (an MCP client).
   */
  default void callProgress(ToolRequest request, double progress, @Nullable Double total, @Nullable String message) {}

  /** The tool sent a log message ({@link ToolContext#log}, a JavaScript {@code console} line), scrubbed and bounded. */
  default void callLog(ToolRequest request, ToolExchange.LogLevel level, String message) {}

  /** The call ends with an error response. */
  default void callFailed(ToolRequest request, ToolResponse response) {}

  /** The call ended; {@code response} is what was recorded. */
  default void callEnd(ToolRequest request, ToolResponse response) {}
}
