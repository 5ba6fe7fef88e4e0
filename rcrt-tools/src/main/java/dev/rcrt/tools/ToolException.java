package dev.rcrt.tools;

import dev.rcrt.core.RcrtException;
import org.jspecify.annotations.Nullable;

/**
 * A tool could not be resolved, loaded or run, or its input or output broke its schema.
 *
 * <p>Inside the {@link ToolRunner} these never escape: they become a {@code tool.response.v1} with
 * {@code status: "error"}, whose {@code error_code} is {@link #code()}. The codes are:
 *
 * <ul>
 *   <li>{@code tool_not_found}: no tool breadcrumb has that name;
 *   <li>{@code tool_definition_invalid}: the tool breadcrumb is malformed (bad schema, no name);
 *   <li>{@code tool_unsupported}: no runtime for the implementation type (the message names the
 *       artifact that brings it, such as {@code rcrt-tools-js}), or no handler registered for a
 *       builtin;
 *   <li>{@code tool_load_failed}: the code could not be loaded: a missing module, export or image,
 *       a module version mismatch, no Docker daemon;
 *   <li>{@code tool_secret_missing}: a secret the tool needs is not known to the resolver (the
 *       message names it, never a value);
 *   <li>{@code tool_secret_denied}: the tool asked for a secret that neither its own record nor a
 *       trusted {@code tool.config.v1} grants it;
 *   <li>{@code tool_untrusted}: the {@link ToolTrustPolicy} refused: the request's writer may not
 *       request tools, the tool's record (or its code breadcrumb) was last written by an untrusted
 *       writer, or a tool tried to write a tool, config, agent or schema definition;
 *   <li>{@code tool_capability_denied}: the tool needs something the host has not allowed: a
 *       container image, a jar location, a connection to an internal address;
 *   <li>{@code tool_denied}: the call needed approval and did not get it; it never runs;
 *   <li>{@code tool_changed}: the tool's breadcrumb changed after the definition was offered (or
 *       pinned); the offered version was not run;
 *   <li>{@code tool_input_invalid}, {@code tool_output_invalid}: a JSON Schema violation, with the
 *       pointer in the message;
 *   <li>{@code tool_too_large}: an HTTP or {@code fetch} response body past {@code
 *       limits.max_response_bytes} (default 10 MiB), or an output past {@code
 *       limits.max_output_bytes} (default 8 MiB, {@link ToolRunner.Builder#maxOutputBytes});
 *   <li>{@code tool_memory_limit}: a JavaScript call allocated more than its {@code
 *       limits.memory_mb} (default 256 MB) and was stopped;
 *   <li>{@code tool_unreachable}: the tool's endpoint could not be reached, or dropped the
 *       connection before answering (after the tool's retries);
 *   <li>{@code tool_failed}: the tool itself failed;
 *   <li>{@code tool_timeout}: it ran past its time limit (retriable).
 * </ul>
 */
public class ToolException extends RcrtException {
  private static final long serialVersionUID = 1L;

  /**
   * @param code one of the codes listed on this class
   * @param message what, where, and what to do; never a secret value
   * @param cause the underlying failure, or null
   */
  public ToolException(String code, String message, @Nullable Throwable cause) {
    super(code, message, "tool_timeout".equals(code), cause);
  }

  /** @see #ToolException(String, String, Throwable) */
  public ToolException(String code, String message) {
    this(code, message, null);
  }
}
