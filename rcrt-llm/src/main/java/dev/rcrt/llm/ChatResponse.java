package dev.rcrt.llm;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The model's answer: OpenAI chat-completions {@code choices[0]} plus {@code usage}.
 *
 * @param message the assistant message, with text, tool calls or both
 * @param finishReason {@code "stop"}, {@code "tool_calls"}, {@code "length"}, … or null
 * @param usage token counts, or null when the provider sent none
 * @param model the model that answered as the provider names it (OpenAI's response {@code model},
 *     such as {@code gpt-4o-mini-2024-07-18}), or null when it named none
 * @param refusal the model's refusal to answer (OpenAI's {@code message.refusal}, streamed as
 *     {@code delta.refusal}), or null when it did not refuse
 */
public record ChatResponse(
    ChatMessage message, @Nullable String finishReason, @Nullable Usage usage, @Nullable String model, @Nullable String refusal) {
  /** Validates required fields. */
  public ChatResponse {
    Objects.requireNonNull(message, "message");
  }

  /** An answer without a refusal. */
  public ChatResponse(ChatMessage message, @Nullable String finishReason, @Nullable Usage usage, @Nullable String model) {
    this(message, finishReason, usage, model, null);
  }

  /**
   * Whether the answer can be used as the model meant it, from its {@code refusal} and {@code
   * finish_reason} as the OpenAI chat-completions reference defines them.
   */
  public enum Outcome {
    /** The model finished its answer: text, tool calls or both ({@code stop}, {@code tool_calls}, or a provider that names none). */
    COMPLETE,
    /** The model refused to answer ({@code refusal} set); its text, if any, is not an answer. */
    REFUSED,
    /** The provider's content filter withheld or cut the answer ({@code finish_reason: "content_filter"}). */
    CONTENT_FILTERED,
    /**
     * The answer hit the output token limit ({@code finish_reason: "length"}): its text is cut off,
     * and a tool call in it may be half written, so it must not be run.
     */
    TRUNCATED
  }

  /** What this answer is: see {@link Outcome}; a refusal wins over the finish reason. */
  public Outcome outcome() {
    if (refusal != null) {
      return Outcome.REFUSED;
    }
    if ("content_filter".equals(finishReason)) {
      return Outcome.CONTENT_FILTERED;
    }
    return "length".equals(finishReason) ? Outcome.TRUNCATED : Outcome.COMPLETE;
  }

  /** A final text answer with {@code finish_reason: "stop"} and no usage. */
  public static ChatResponse text(String content) {
    return new ChatResponse(ChatMessage.assistant(content, java.util.List.of()), "stop", null, null);
  }

  /** An answer that only calls tools ({@code content: null}, {@code finish_reason: "tool_calls"}). */
  public static ChatResponse toolCalls(ToolCall... calls) {
    return new ChatResponse(ChatMessage.assistant(null, java.util.List.of(calls)), "tool_calls", null, null);
  }

  /**
   * Gives this answer's text to {@code listener} in one piece, for clients that cannot stream
   * (as {@link StreamListener} asks of them); nothing when there is no listener or no text.
   *
   * @return this answer
   */
  public ChatResponse streamedTo(@Nullable StreamListener listener) {
    String text = message.content();
    if (listener != null && text != null && !text.isEmpty() && message.toolCalls().isEmpty()) {
      listener.onToken(text);
    }
    return this;
  }

  /** This answer as given by {@code model}. */
  public ChatResponse withModel(@Nullable String model) {
    return new ChatResponse(message, finishReason, usage, model, refusal);
  }

  /**
   * Token counts of one call: OpenAI {@code usage}.
   *
   * @param promptTokens tokens in the request
   * @param completionTokens tokens in the answer
   * @param totalTokens their sum as the provider reports it
   */
  public record Usage(long promptTokens, long completionTokens, long totalTokens) {}
}
