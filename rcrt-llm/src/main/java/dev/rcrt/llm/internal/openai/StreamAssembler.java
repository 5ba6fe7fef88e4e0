package dev.rcrt.llm.internal.openai;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import dev.rcrt.llm.ChatMessage;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.LlmErrorCode;
import dev.rcrt.llm.LlmException;
import dev.rcrt.llm.StreamListener;
import dev.rcrt.llm.ToolCall;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Builds one chat completion from OpenAI chat-completions streaming chunks ({@code
 * chat.completion.chunk}): {@code delta.content} fragments are appended and passed to the
 * listener; {@code delta.tool_calls} fragments are assembled by {@code index}, where {@code id},
 * {@code type} and {@code function.name} arrive with the first fragment of an index and {@code
 * function.arguments} arrives in pieces, interleaved across indexes; a final chunk with empty {@code
 * choices} carries {@code usage}; {@code [DONE]} ends the stream; an {@code error} object mid-stream
 * is an {@link LlmException}.
 */
public final class StreamAssembler {
  private final String endpoint;
  private final @Nullable StreamListener listener;
  private final StringBuilder content = new StringBuilder();
  private final Map<Integer, Call> calls = new TreeMap<>();
  private @Nullable String finishReason;
  /** The refusal streamed as {@code delta.refusal} fragments, or null when the model did not refuse. */
  private @Nullable StringBuilder refusal;
  private ChatResponse.@Nullable Usage usage;
  private @Nullable String model;
  private boolean sawContent;
  private boolean done;

  private static final class Call {
    String id = "";
    String name = "";
    final StringBuilder arguments = new StringBuilder();
  }

  public StreamAssembler(String endpoint, @Nullable StreamListener listener) {
    this.endpoint = endpoint;
    this.listener = listener;
  }

  /**
   * Whether the stream ended properly: {@code [DONE]} arrived, or a chunk with a {@code
   * finish_reason}. A stream cut off before either is not a complete answer.
   */
  public boolean finished() {
    return done || finishReason != null;
  }

  /** Whether any text was already passed to the listener (a retry would repeat it). */
  public boolean emitted() {
    return sawContent;
  }

  /** One event's data. */
  public void accept(String data) {
    if (done) {
      return;
    }
    if (data.strip().equals("[DONE]")) {
      done = true;
      return;
    }
    JsonNode chunk;
    try {
      chunk = RcrtJson.parse(data);
    } catch (ValidationException e) {
      throw new LlmException(LlmErrorCode.LLM_BAD_RESPONSE, "model endpoint " + endpoint + " streamed a chunk that is not JSON: " + e.getMessage(), 0, null, false, null);
    }
    JsonNode error = chunk.get("error");
    if (error != null && !error.isNull()) {
      String message = ChatCompletionsWire.providerMessage(error);
      throw new LlmException(
          LlmErrorCode.LLM_PROVIDER_ERROR, "model endpoint " + endpoint + " sent an error mid-stream: " + message, 0, message, true, null);
    }
    if (chunk.path("model").isTextual()) {
      model = chunk.get("model").asText();
    }
    JsonNode u = chunk.get("usage");
    if (u != null && u.isObject()) {
      usage = new ChatResponse.Usage(u.path("prompt_tokens").asLong(), u.path("completion_tokens").asLong(), u.path("total_tokens").asLong());
    }
    JsonNode choice = chunk.path("choices").path(0);
    if (choice.isMissingNode()) {
      return;
    }
    JsonNode delta = choice.path("delta");
    JsonNode text = delta.get("content");
    if (text != null && text.isTextual() && !text.textValue().isEmpty()) {
      content.append(text.textValue());
      sawContent = true;
      if (listener != null) {
        listener.onToken(text.textValue());
      }
    }
    JsonNode refused = delta.get("refusal");
    if (refused != null && refused.isTextual()) {
      refusal = (refusal == null ? new StringBuilder() : refusal).append(refused.textValue());
    }
    for (JsonNode fragment : delta.path("tool_calls")) {
      Call call = calls.computeIfAbsent(fragment.path("index").asInt(calls.size()), i -> new Call());
      if (fragment.hasNonNull("id")) {
        call.id = fragment.get("id").asText();
      }
      JsonNode fn = fragment.path("function");
      if (fn.hasNonNull("name")) {
        call.name = call.name.isEmpty() ? fn.get("name").asText() : call.name;
      }
      if (fn.hasNonNull("arguments")) {
        call.arguments.append(fn.get("arguments").asText());
      }
    }
    if (choice.hasNonNull("finish_reason")) {
      finishReason = choice.get("finish_reason").asText();
    }
  }

  /** The assembled completion; tool calls in index order. */
  public ChatResponse response() {
    List<ToolCall> out = new ArrayList<>();
    for (Map.Entry<Integer, Call> e : calls.entrySet()) {
      Call c = e.getValue();
      out.add(new ToolCall(c.id.isEmpty() ? "call_" + e.getKey() : c.id, c.name, c.arguments.toString()));
    }
    String text = content.length() == 0 ? null : content.toString();
    return new ChatResponse(ChatMessage.assistant(text, out), finishReason, usage, model, refusal == null ? null : refusal.toString());
  }
}
