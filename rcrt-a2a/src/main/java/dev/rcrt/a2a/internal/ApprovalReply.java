package dev.rcrt.a2a.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.agent.Run;
import dev.rcrt.core.RcrtJson;
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
 * A caller's decision on a task that waits for approval, read from its reply: a data part {@code
 * {"decision": "approve"|"deny", "call_id"?: "<request id>", "reason"?: "…"}}, or a text that is
 * exactly {@code approve} or {@code deny} (any case, surrounding blanks ignored). Nothing else
 * decides: a free text that merely starts with "ok" or "yes" is refused. It decides the call it
 * names, or the single call waiting for approval; when several wait, the reply must name one.
 *
 * @param approve true to approve, false to deny
 * @param callId the request id of the call decided
 * @param reason the caller's reason, or null
 */
record ApprovalReply(boolean approve, String callId, @Nullable String reason) {

  /**
   * The decision {@code message} makes on {@code run}'s waiting calls.
   *
   * @throws InvalidParamsError saying what to send, when the reply decides nothing or names no waiting call
   */
  static ApprovalReply of(Message message, Run run, String taskId) {
    Boolean approve = null;
    String callId = null;
    String reason = null;
    for (Part<?> part : message.getParts()) {
      if (part instanceof DataPart d) {
        JsonNode data = RcrtJson.toTree(d.getData());
        approve = decision(data.path("decision").asText(""), approve);
        callId = data.path("call_id").isTextual() ? data.get("call_id").asText() : callId;
        reason = data.path("reason").isTextual() ? data.get("reason").asText() : reason;
      } else if (part instanceof TextPart t) {
        approve = decision(t.getText(), approve);
      }
    }
    List<String> waiting = new ArrayList<>();
    for (Run.PendingCall call : run.pending()) {
      if (call.approval() != null) {
        waiting.add(call.requestId());
      }
    }
    if (approve == null) {
      throw new InvalidParamsError("task " + taskId + " waits for approval: reply \"approve\" or \"deny\" as the whole text, or a data part"
          + " {\"decision\": \"approve\"|\"deny\", \"call_id\": \"…\", \"reason\": \"…\"}; waiting calls: " + String.join(", ", waiting));
    }
    if (callId == null) {
      if (waiting.size() != 1) {
        throw new InvalidParamsError("task " + taskId + " has " + waiting.size() + " calls waiting for approval: name the one decided with"
            + " a data part {\"decision\": …, \"call_id\": …}; waiting calls: " + String.join(", ", waiting));
      }
      callId = waiting.get(0);
    } else if (!waiting.contains(callId)) {
      throw new InvalidParamsError("call '" + callId + "' of task " + taskId + " does not wait for approval; waiting calls: " + String.join(", ", waiting));
    }
    return new ApprovalReply(approve, callId, reason);
  }

  /** The decision a word makes: exactly approve or deny; else {@code earlier}. */
  private static @Nullable Boolean decision(String word, @Nullable Boolean earlier) {
    String w = word.strip().toLowerCase(Locale.ROOT);
    return w.equals("approve") ? Boolean.TRUE : w.equals("deny") ? Boolean.FALSE : earlier;
  }
}
