package dev.rcrt.opentelemetry.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.llm.ChatMessage;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.ToolCall;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Conversation content in the OpenTelemetry GenAI semantic conventions' message shape, for the
 * opt-in content attributes {@code gen_ai.input.messages} and {@code gen_ai.output.messages}: a
 * JSON array of {@code {role, parts: [...]}} with parts {@code {type: "text", content}}, {@code
 * {type: "tool_call", id, name, arguments}} and {@code {type: "tool_call_response", id, response}};
 * an output message also has {@code finish_reason}. Images are noted as {@code {type: "uri",
 * modality: "image", uri}}, with the bytes of an inline {@code data:} image left out.
 */
public final class GenAiContent {
  private GenAiContent() {}

  /** {@code gen_ai.input.messages}: the messages sent, the system prompt included. */
  public static String input(List<ChatMessage> messages, UnaryOperator<String> scrub) {
    ArrayNode out = RcrtJson.array();
    messages.forEach(m -> out.add(message(m, scrub)));
    return RcrtJson.write(out);
  }

  /** {@code gen_ai.output.messages}: the model's answer. */
  public static String output(ChatResponse response, UnaryOperator<String> scrub) {
    ObjectNode message = message(response.message(), scrub);
    message.put("finish_reason", response.finishReason() == null ? "stop" : response.finishReason());
    return RcrtJson.write(RcrtJson.array().add(message));
  }

  /** One message; every text it carries (content, tool-call arguments, tool results) passed through {@code scrub}. */
  private static ObjectNode message(ChatMessage m, UnaryOperator<String> scrub) {
    ObjectNode out = RcrtJson.object().put("role", m.role());
    ArrayNode parts = out.putArray("parts");
    if ("tool".equals(m.role())) {
      parts.addObject().put("type", "tool_call_response").put("id", m.toolCallId()).put("response", m.content() == null ? null : scrub.apply(m.content()));
      return out;
    }
    if (m.content() != null && !m.content().isEmpty()) {
      parts.addObject().put("type", "text").put("content", scrub.apply(m.content()));
    }
    for (ChatMessage.Image image : m.images()) {
      parts.addObject().put("type", "uri").put("modality", "image")
          .put("uri", image.url().startsWith("data:") ? "data:(left out)" : image.url());
    }
    for (ToolCall call : m.toolCalls()) {
      parts.addObject().put("type", "tool_call").put("id", call.id()).put("name", call.name()).put("arguments", scrub.apply(call.arguments()));
    }
    return out;
  }
}
