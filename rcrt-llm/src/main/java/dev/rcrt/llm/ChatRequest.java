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
 *
 * <p>A value: it carries no listener. To have the answer's text as it arrives, pass a {@link
 * StreamListener} beside it ({@link LlmClient#chat(ChatRequest, StreamListener)}).
 */
public record ChatRequest(
    String model,
    List<ChatMessage> messages,
    ArrayNode tools,
    ChatOptions options) {

  /** Validates and copies; null {@code tools} means none, null {@code options} the defaults. */
  public ChatRequest {
    Objects.requireNonNull(model, "model");
    messages = List.copyOf(messages);
    tools = tools == null ? RcrtJson.array() : tools;
    options = options == null ? ChatOptions.DEFAULTS : options;
  }

  /** A request with the provider's default settings, no tools and no streaming. */
  public static ChatRequest of(String model, List<ChatMessage> messages) {
    return new ChatRequest(model, messages, RcrtJson.array(), ChatOptions.DEFAULTS);
  }

  /** The same request with other settings. */
  public ChatRequest withOptions(ChatOptions newOptions) {
    return new ChatRequest(model, messages, tools, newOptions);
  }

  /** The same request offering {@code newTools} (an OpenAI {@code tools} array). */
  public ChatRequest withTools(ArrayNode newTools) {
    return new ChatRequest(model, messages, newTools, options);
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
