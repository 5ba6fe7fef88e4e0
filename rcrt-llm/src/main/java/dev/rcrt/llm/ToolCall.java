package dev.rcrt.llm;

import java.util.Objects;

/**
 * One function call the model asked for: OpenAI chat-completions {@code tool_calls[i]} of type
 * {@code function}.
 *
 * @param id the provider's call id; the answer must carry it as {@code tool_call_id}
 * @param name the function name, as offered in the request's {@code tools}
 * @param arguments the arguments as the model wrote them: a JSON <em>string</em>, which may be
 *     malformed; empty means no arguments
 */
public record ToolCall(String id, String name, String arguments) {
  /** Validates required fields; null arguments become an empty string. */
  public ToolCall {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(name, "name");
    arguments = arguments == null ? "" : arguments;
  }
}
