package dev.rcrt.llm.internal.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.llm.ChatMessage;
import dev.rcrt.llm.ChatRequest;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.LlmErrorCode;
import dev.rcrt.llm.LlmException;
import dev.rcrt.llm.ToolCall;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The OpenAI chat-completions JSON: request bodies out, completions in.
 *
 * <p>An assistant message that calls tools and has no text is sent without {@code content}: some
 * providers reject an empty string there.
 */
public final class ChatCompletionsWire {
  private ChatCompletionsWire() {}

  /**
   * The request body {@code {model, messages, tools?, temperature?, max_tokens?, tool_choice?,
   * response_format?, parallel_tool_calls?, seed?, stop?}}; settings left null are left out.
   */
  public static ObjectNode requestBody(ChatRequest request) {
    ObjectNode body = RcrtJson.object();
    body.put("model", request.model());
    ArrayNode messages = body.putArray("messages");
    for (ChatMessage m : request.messages()) {
      messages.add(message(m));
    }
    if (!request.tools().isEmpty()) {
      body.set("tools", request.tools());
    }
    body.setAll(request.options().toJson());
    if (request.tools().isEmpty()) {
      body.remove("tool_choice"); // providers refuse both without tools (OpenAI: HTTP 400)
      body.remove("parallel_tool_calls");
    }
    return body;
  }


  static ObjectNode message(ChatMessage m) {
    ObjectNode out = RcrtJson.object();
    out.put("role", m.role());
    boolean blank = m.content() == null || m.content().isEmpty();
    if (!m.images().isEmpty()) {
      ArrayNode parts = out.putArray("content");
      if (!blank) {
        parts.addObject().put("type", "text").put("text", m.content());
      }
      for (ChatMessage.Image image : m.images()) {
        ObjectNode url = parts.addObject().put("type", "image_url").putObject("image_url").put("url", image.url());
        if (image.detail() != null) {
          url.put("detail", image.detail());
        }
      }
    } else if (!(blank && m.hasToolCalls())) {
      out.put("content", m.content() == null ? "" : m.content());
    }
    if (m.hasToolCalls()) {
      ArrayNode calls = out.putArray("tool_calls");
      for (ToolCall call : m.toolCalls()) {
        ObjectNode c = calls.addObject();
        c.put("id", call.id());
        c.put("type", "function");
        ObjectNode fn = c.putObject("function");
        fn.put("name", call.name());
        fn.put("arguments", call.arguments());
      }
    }
    if (m.toolCallId() != null) {
      out.put("tool_call_id", m.toolCallId());
    }
    return out;
  }

  /**
   * Reads a chat completion {@code {choices: [{message: {content, refusal, tool_calls}, finish_reason}], usage, model}}.
   *
   * @throws LlmException {@code llm_provider_error} for an {@code error} object, {@code
   *     llm_bad_response} for anything that is not a completion
   */
  public static ChatResponse parseCompletion(JsonNode body, String endpoint) {
    JsonNode error = body.get("error");
    if (error != null && !error.isNull()) {
      String message = providerMessage(error);
      throw new LlmException(
          LlmErrorCode.LLM_PROVIDER_ERROR,
          "model endpoint " + endpoint + " answered with an error: " + message,
          0,
          message,
          false,
          null);
    }
    JsonNode choice = body.path("choices").path(0);
    JsonNode message = choice.get("message");
    if (message == null || !message.isObject()) {
      throw new LlmException(
          LlmErrorCode.LLM_BAD_RESPONSE,
          "model endpoint " + endpoint + " answered without choices[0].message; is it an OpenAI-compatible chat-completions endpoint?",
          0,
          null,
          false,
          null);
    }
    List<ToolCall> calls = new ArrayList<>();
    for (JsonNode c : message.path("tool_calls")) {
      JsonNode fn = c.path("function");
      JsonNode args = fn.get("arguments");
      calls.add(
          new ToolCall(
              c.path("id").asText("call_" + calls.size()),
              fn.path("name").asText(),
              args == null || args.isNull() ? "" : args.isTextual() ? args.textValue() : RcrtJson.write(args)));
    }
    JsonNode content = message.get("content");
    ChatMessage assistant =
        ChatMessage.assistant(content == null || content.isNull() ? null : content.asText(), calls);
    JsonNode refusal = message.get("refusal");
    return new ChatResponse(assistant, text(choice, "finish_reason"), usage(body.get("usage")), text(body, "model"),
        refusal == null || refusal.isNull() ? null : refusal.asText());
  }

  /** The provider's message from an {@code error} object or string. */
  public static String providerMessage(JsonNode error) {
    if (error.isTextual()) {
      return error.textValue();
    }
    JsonNode message = error.get("message");
    return message != null && !message.isNull() ? message.asText() : RcrtJson.write(error);
  }

  private static ChatResponse.@Nullable Usage usage(@Nullable JsonNode usage) {
    if (usage == null || !usage.isObject()) {
      return null;
    }
    return new ChatResponse.Usage(
        usage.path("prompt_tokens").asLong(),
        usage.path("completion_tokens").asLong(),
        usage.path("total_tokens").asLong());
  }

  private static @Nullable String text(JsonNode node, String field) {
    JsonNode v = node.get(field);
    return v == null || v.isNull() ? null : v.asText();
  }
}
