package dev.rcrt.llm;

import java.util.Base64;
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
 * @param images images a {@code user} message shows the model, after its text; copied, empty
 *     for none (sent as OpenAI {@code image_url} content parts)
 */
public record ChatMessage(
    String role, @Nullable String content, List<ToolCall> toolCalls, @Nullable String toolCallId, List<Image> images) {

  /**
   * Validates and copies.
   *
   * @throws IllegalArgumentException if a message other than a user message has images
   */
  public ChatMessage {
    Objects.requireNonNull(role, "role");
    toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
    images = images == null ? List.of() : List.copyOf(images);
    if ("tool".equals(role)) {
      Objects.requireNonNull(toolCallId, "a tool message needs toolCallId");
    }
    if (!images.isEmpty() && !"user".equals(role)) {
      throw new IllegalArgumentException("only user messages carry images, not " + role + " messages");
    }
  }

  /** A message without images. */
  public ChatMessage(String role, @Nullable String content, List<ToolCall> toolCalls, @Nullable String toolCallId) {
    this(role, content, toolCalls, toolCallId, List.of());
  }

  /** A {@code system} message. */
  public static ChatMessage system(String content) {
    return new ChatMessage("system", content, List.of(), null);
  }

  /** A {@code user} message. */
  public static ChatMessage user(String content) {
    return new ChatMessage("user", content, List.of(), null);
  }

  /** A {@code user} message with images after its text (for vision models). */
  public static ChatMessage user(String content, List<Image> images) {
    return new ChatMessage("user", content, List.of(), null, images);
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

  /**
   * An image in a user message: OpenAI's {@code {type: "image_url", image_url: {url, detail}}}.
   *
   * @param url an {@code https:} URL the provider fetches, or a {@code data:} URL carrying the bytes
   * @param detail {@code "low"}, {@code "high"} or {@code "auto"}; null for the provider default
   */
  public record Image(String url, @Nullable String detail) {

    /**
     * Validates.
     *
     * @throws IllegalArgumentException if the URL is neither {@code http(s):} nor {@code data:image/}
     */
    public Image {
      Objects.requireNonNull(url, "url");
      if (!url.startsWith("https://") && !url.startsWith("http://") && !url.startsWith("data:image/")) {
        throw new IllegalArgumentException(
            "an image URL must be http(s) or a data:image/… URL, found '" + (url.length() > 40 ? url.substring(0, 40) + "…" : url) + "'");
      }
    }

    /** An image the provider fetches from {@code url}. */
    public static Image url(String url) {
      return new Image(url, null);
    }

    /**
     * An image sent inline as a base64 {@code data:} URL.
     *
     * @param mediaType such as {@code image/png} or {@code image/jpeg}
     */
    public static Image bytes(byte[] bytes, String mediaType) {
      if (!mediaType.startsWith("image/")) {
        throw new IllegalArgumentException("media type must be image/…, found '" + mediaType + "'");
      }
      return new Image("data:" + mediaType + ";base64," + Base64.getEncoder().encodeToString(bytes), null);
    }
  }
}
