package dev.rcrt.agent;

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
 * @param temperature sampling temperature, or null for the provider default
 */
public record ChatRequest(
    String model, List<ChatMessage> messages, ArrayNode tools, @Nullable Double temperature) {

  /** Validates and copies. */
  public ChatRequest {
    Objects.requireNonNull(model, "model");
    messages = List.copyOf(messages);
    tools = tools == null ? RcrtJson.mapper().createArrayNode() : tools;
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
