package dev.rcrt.llm;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.rcrt.core.RcrtJson;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One request to a chat model, in OpenAI chat-completions terms.
 *
 * @param model the model id, for example {@code "gpt-4o-mini"} or {@code
 *     "google/gemini-2.5-flash"}
 * @param messages the conversation, oldest first; copied
 * @param tools the OpenAI {@code tools} array ({@code [{type: "function", function: {name,
 *     description, parameters}}]}); empty for none. Shared, treat as read-only.
 * @param options sampling and output settings; {@link ChatOptions#DEFAULTS} for the provider's
 * @param stream where to send the answer's text as it arrives ({@code stream: true}), or null for
 *     a single answer
 */
public record ChatRequest(
    String model,
    List<ChatMessage> messages,
    ArrayNode tools,
    ChatOptions options,
    @Nullable StreamListener stream) {

  /** Validates and copies; null {@code tools} means none, null {@code options} the defaults. */
  public ChatRequest {
    Objects.requireNonNull(model, "model");
    messages = List.copyOf(messages);
    tools = tools == null ? RcrtJson.array() : tools;
    options = options == null ? ChatOptions.DEFAULTS : options;
  }

  /** A request with the provider's default settings, no tools and no streaming. */
  public static ChatRequest of(String model, List<ChatMessage> messages) {
    return new ChatRequest(model, messages, RcrtJson.array(), ChatOptions.DEFAULTS, null);
  }

  /** The same request, streamed to {@code listener}. */
  public ChatRequest withStream(@Nullable StreamListener listener) {
    return new ChatRequest(model, messages, tools, options, listener);
  }

  /** The same request with other settings. */
  public ChatRequest withOptions(ChatOptions newOptions) {
    return new ChatRequest(model, messages, tools, newOptions, stream);
  }

  /** The same request offering {@code newTools} (an OpenAI {@code tools} array). */
  public ChatRequest withTools(ArrayNode newTools) {
    return new ChatRequest(model, messages, newTools, options, stream);
  }

  /** The last message with role {@code user}, or null. */
  public @Nullable ChatMessage lastUserMessage() {
    for (int i = messages.size() - 1; i >= 0; i--) {
      if ("user".equals(messages.get(i).role())) {
        return messages.get(i);
      }
    }
    return null;
  }
}
