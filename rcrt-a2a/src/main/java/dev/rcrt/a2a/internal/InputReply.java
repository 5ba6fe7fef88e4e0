package dev.rcrt.a2a.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.agent.Run;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolExchange;
import io.a2a.spec.DataPart;
import io.a2a.spec.InvalidParamsError;
import io.a2a.spec.Message;
import io.a2a.spec.Part;
import io.a2a.spec.TextPart;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * A caller's answer to a task whose tool asked its user a question ({@code input-required} on a
 * run {@code waiting_for_input}), read from its reply: a data part {@code {"action"?:
 * "accept"|"decline"|"cancel", "content"?: {…}, "call_id"?: "<request id>"}} (with {@code content}
 * and no action it accepts), or a text that is exactly {@code decline} or {@code cancel}. Free text
 * answers nothing: a question's answer is values that fit its schema. It answers the call it
 * names, or the single call whose question waits.
 *
 * @param callId the request id of the call answered
 * @param answer the action and, for accept, the values
 */
record InputReply(String callId, ToolExchange.Elicited answer) {

  /**
   * The answer {@code message} gives to {@code run}'s waiting question.
   *
   * @throws InvalidParamsError saying what to send, when the reply answers nothing or names no call with a question
   */
  static InputReply of(Message message, Run run, String taskId) {
    ToolExchange.Elicited.Action action = null;
    JsonNode content = null;
    String callId = null;
    for (Part<?> part : message.getParts()) {
      if (part instanceof DataPart d) {
        JsonNode data = RcrtJson.toTree(d.getData());
        content = data.path("content").isObject() ? data.get("content") : content;
        action = action(data.path("action").asText(""), content != null && action == null ? ToolExchange.Elicited.Action.ACCEPT : action);
        callId = data.path("call_id").isTextual() ? data.get("call_id").asText() : callId;
      } else if (part instanceof TextPart t) {
        ToolExchange.Elicited.Action said = action(t.getText(), null);
        action = said == ToolExchange.Elicited.Action.ACCEPT ? action : said != null ? said : action; // "accept" alone carries no values
      }
    }
    List<String> waiting = new ArrayList<>();
    for (Run.PendingCall call : run.pending()) {
      if (call.question() != null) {
        waiting.add(call.requestId());
      }
    }
    if (action == null || action == ToolExchange.Elicited.Action.ACCEPT && content == null) {
      throw new InvalidParamsError("task " + taskId + " waits for its user's input: reply with a data part {\"content\": {…}} whose values"
          + " fit the question's schema (or {\"action\": \"decline\"|\"cancel\"}, or the text \"decline\" or \"cancel\"); waiting calls: "
          + String.join(", ", waiting));
    }
    if (callId == null) {
      if (waiting.size() != 1) {
        throw new InvalidParamsError("task " + taskId + " has " + waiting.size() + " calls whose tools ask a question: name the one answered"
            + " with \"call_id\" in the data part; waiting calls: " + String.join(", ", waiting));
      }
      callId = waiting.get(0);
    } else if (!waiting.contains(callId)) {
      throw new InvalidParamsError("call '" + callId + "' of task " + taskId + " asks no question; waiting calls: " + String.join(", ", waiting));
    }
    return new InputReply(callId, new ToolExchange.Elicited(action, action == ToolExchange.Elicited.Action.ACCEPT ? content : null));
  }

  /** The action a word names exactly; else {@code earlier}. */
  private static ToolExchange.Elicited.@Nullable Action action(String word, ToolExchange.Elicited.@Nullable Action earlier) {
    return switch (word.strip().toLowerCase(Locale.ROOT)) {
      case "accept" -> ToolExchange.Elicited.Action.ACCEPT;
      case "decline" -> ToolExchange.Elicited.Action.DECLINE;
      case "cancel" -> ToolExchange.Elicited.Action.CANCEL;
      default -> earlier;
    };
  }
}
