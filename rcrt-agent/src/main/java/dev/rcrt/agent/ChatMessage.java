package dev.rcrt.agent;

import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One message of an OpenAI chat-completions conversation.
 *
 * @param role {@code "system"}, {@code "user"}, {@code "assistant"} or {@code "tool"}
 * @param content the text; may be null for an assistant message that only calls tools
 * @param toolCalls the calls of an assistant message; copied, empty otherwise
 * @param toolCallId for a {@code tool} message, the id of the call it answers; else null
 */
public record ChatMessage(
    String role, @Nullable String content, List<ToolCall> toolCalls, @Nullable String toolCallId) {

  /** Validates and copies. */
  public ChatMessage {
    Objects.requireNonNull(role, "role");
    toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
    if ("tool".equals(role)) {
      Objects.requireNonNull(toolCallId, "a tool message needs toolCallId");
    }
  }

  /** A {@code system} message. */
  public static ChatMessage system(String content) {
    return new ChatMessage("system", content, List.of(), null);
  }

  /** A {@code user} message. */
  public static ChatMessage user(String content) {
    return new ChatMessage("user", content, List.of(), null);
  }

  /** An assistant message; {@code content} may be null when {@code toolCalls} is not empty. */
  public static ChatMessage assistant(@Nullable String content, List<ToolCall> toolCalls) {
    return new ChatMessage("assistant", content, toolCalls, null);
  }

  /** The result of tool call {@code toolCallId}, as the text the model reads. */
  public static ChatMessage tool(String toolCallId, String content) {
    return new ChatMessage("tool", content, List.of(), toolCallId);
  }

  /** Whether this is an assistant message that calls tools. */
  public boolean hasToolCalls() {
    return !toolCalls.isEmpty();
  }
}
