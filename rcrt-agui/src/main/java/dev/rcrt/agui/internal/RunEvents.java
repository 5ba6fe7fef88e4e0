package dev.rcrt.agui.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.agent.AgentResponse;
import dev.rcrt.agent.Run;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.Principal;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ApprovalRequest;
import dev.rcrt.tools.InputRequest;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolTrustPolicy;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The AG-UI events (protocol 1.0, {@code @ag-ui/core}'s event types) that the records of one agent
 * run tell, as a function of the records alone: every process, and a process that starts later,
 * derives the same events with the same ids, which is what lets a client that reconnects resume
 * from the last event it saw wherever it reconnects.
 *
 * <p>Per record, oldest first: a {@code tool.request.v1} the agent wrote is {@code TOOL_CALL_START},
 * {@code TOOL_CALL_ARGS} (its input, as recorded: secrets scrubbed) and {@code TOOL_CALL_END}; a
 * {@code tool.response.v1} a runner wrote (as the runners' trust policy says) is {@code
 * TOOL_CALL_RESULT}; the agent's answer is {@code TEXT_MESSAGE_START}, {@code TEXT_MESSAGE_CONTENT}
 * and {@code TEXT_MESSAGE_END}, and so is the text a model round said beside its calls (rounds
 * that offer tools natively; in the other protocols the text is the calls). A text's message id is
 * its round's ({@link #messageId}), as when it streams. Records anyone else wrote into the run (a tool, another principal)
 * tell nothing. Event {@code k} of the record at position {@code i} has id {@code "i.k"}. Once the
 * run stands still, the end: {@code RUN_FINISHED} with outcome {@code success} (its result names
 * the run and its status), {@code RUN_FINISHED} with outcome {@code interrupt} when calls wait for
 * approval or a tool's question waits for input (one interrupt per call, its id the call's {@code
 * tool.request.v1} id, which a resume names), or {@code RUN_ERROR} when it failed or was cancelled.
 */
public final class RunEvents {
  /** The JSON Schema of a resume payload for an approval interrupt. */
  static final JsonNode APPROVAL_SCHEMA = RcrtJson.parse("""
      {"type":"object","properties":{"approved":{"type":"boolean"},"reason":{"type":"string"}},"required":["approved"]}""");

  private RunEvents() {}

  /**
   * The events after the first {@code seen} records of {@code run}, and the end event when the run
   * stands still.
   *
   * @param threadId the AG-UI thread, for the end event
   * @param runId the AG-UI run the client asked for (not the RCRT run), for the end event
   * @param policy the runners' trust policy: which {@code tool.response.v1} writers count
   * @return the events, each with its id, and how many records they cover
   */
  public static Batch after(Run run, int seen, String threadId, String runId, ToolTrustPolicy policy) {
    List<Event> out = new ArrayList<>();
    List<Breadcrumb> records = run.records();
    Principal agent = Principal.agent(run.agentId());
    for (int i = seen; i < records.size(); i++) {
      List<ObjectNode> told = told(records.get(i), run, agent, policy);
      for (int k = 0; k < told.size(); k++) {
        out.add(new Event(i + "." + k, told.get(k).put("timestamp", records.get(i).createdAt().toEpochMilli())));
      }
    }
    ObjectNode end = end(run, threadId, runId);
    if (end != null) {
      out.add(new Event("end." + records.size(), end));
    }
    return new Batch(out, records.size(), end != null);
  }

  /** The events one record tells. */
  private static List<ObjectNode> told(Breadcrumb record, Run run, Principal agent, ToolTrustPolicy policy) {
    String schema = String.valueOf(record.schemaName());
    boolean byAgent = Principal.writerOf(record).equals(agent);
    if (schema.equals(ToolRequest.SCHEMA) && byAgent) {
      ToolRequest request = ToolRequest.fromBreadcrumb(record);
      return List.of(
          event("TOOL_CALL_START").put("toolCallId", request.requestId()).put("toolCallName", request.tool()),
          event("TOOL_CALL_ARGS").put("toolCallId", request.requestId()).put("delta", RcrtJson.write(request.input())),
          event("TOOL_CALL_END").put("toolCallId", request.requestId()));
    }
    if (schema.equals(ToolResponse.SCHEMA) && ToolResponse.writtenByARunner(record, policy)) {
      ToolResponse response = ToolResponse.fromBreadcrumb(record);
      JsonNode content = response.success() ? response.requireOutput()
          : RcrtJson.object().put("error", response.errorCode()).put("message", response.error());
      return List.of(event("TOOL_CALL_RESULT").put("messageId", record.id()).put("toolCallId", response.requestId())
          .put("role", "tool").put("content", RcrtJson.write(content)));
    }
    AgentResponse answer = run.answer();
    if (answer != null && record.id().equals(answer.id()) && answer.status() != AgentResponse.Status.ERROR
        && answer.status() != AgentResponse.Status.CANCELLED) {
      // the model's answer is the text of its last round, which streamed under that round's id
      return text(answer.status() == AgentResponse.Status.SUCCESS ? messageId(run.id(), answer.rounds()) : record.id(), answer.message(), true);
    }
    if (Run.isRound(record) && byAgent
        && "native".equals(record.contextText("protocol")) && record.context().path("round").asInt(0) > 0) {
      String said = record.contextText("message");
      if (said != null && !said.isEmpty()) { // what the model said beside its calls
        return text(messageId(run.id(), record.context().path("round").asInt()), said, false);
      }
    }
    return List.of();
  }

  /**
   * The AG-UI message id of the text of round {@code round} of run {@code runId}: the same for the
   * text as it streams ({@code AgentExecutor.streamText}) and as its record tells it.
   */
  public static String messageId(String runId, int round) {
    return runId + "." + round;
  }

  private static List<ObjectNode> text(String messageId, String text, boolean evenEmpty) {
    if (text.isEmpty() && !evenEmpty) {
      return List.of();
    }
    List<ObjectNode> events = new ArrayList<>();
    events.add(event("TEXT_MESSAGE_START").put("messageId", messageId).put("role", "assistant"));
    if (!text.isEmpty()) {
      events.add(event("TEXT_MESSAGE_CONTENT").put("messageId", messageId).put("delta", text));
    }
    events.add(event("TEXT_MESSAGE_END").put("messageId", messageId));
    return events;
  }

  /** The end event for the run as it stands, or null while it runs. */
  private static @Nullable ObjectNode end(Run run, String threadId, String runId) {
    return switch (run.status()) {
      case RUNNING, WAITING_FOR_TOOLS -> null;
      case DONE -> {
        ObjectNode finished = finished(threadId, runId);
        finished.putObject("outcome").put("type", "success");
        finished.putObject("result").put("rcrt_run_id", run.id())
            .put("status", run.answer() == null ? "done" : run.answer().status().name().toLowerCase(java.util.Locale.ROOT));
        yield finished;
      }
      case WAITING_FOR_APPROVAL, WAITING_FOR_INPUT -> {
        ObjectNode finished = finished(threadId, runId);
        ObjectNode outcome = finished.putObject("outcome").put("type", "interrupt");
        ArrayNode interrupts = outcome.putArray("interrupts");
        for (Run.PendingCall call : run.pending()) {
          ApprovalRequest approval = call.approval();
          InputRequest question = call.question();
          if (approval != null) {
            interrupts.addObject().put("id", call.requestId()).put("reason", "tool_call").put("toolCallId", call.requestId())
                .put("message", "Approve tool '" + call.tool() + "' with input " + RcrtJson.write(call.input()) + "?")
                .put("expiresAt", approval.expiresAt().toString())
                .set("responseSchema", APPROVAL_SCHEMA);
          } else if (question != null) {
            interrupts.addObject().put("id", call.requestId()).put("reason", "input_required").put("toolCallId", call.requestId())
                .put("message", question.message())
                .put("expiresAt", question.expiresAt().toString())
                .set("responseSchema", question.requestedSchema());
          }
        }
        yield finished;
      }
      case FAILED -> {
        AgentResponse answer = run.answer();
        ObjectNode error = event("RUN_ERROR");
        if (answer != null && answer.error() != null) {
          error.put("message", answer.error().message()).put("code", answer.error().code());
        } else {
          error.put("message", "the run failed").put("code", "run_failed");
        }
        yield error;
      }
      case CANCELLED -> event("RUN_ERROR").put("message", "the run was cancelled").put("code", "cancelled");
    };
  }

  private static ObjectNode finished(String threadId, String runId) {
    return event("RUN_FINISHED").put("threadId", threadId).put("runId", runId);
  }

  static ObjectNode event(String type) {
    return RcrtJson.object().put("type", type);
  }

  /**
   * One event to send.
   *
   * @param id its SSE id: {@code "<record position>.<k>"}, or {@code "end.<records>"} for the end
   * @param json the AG-UI event
   */
  public record Event(String id, ObjectNode json) {}

  /**
   * The events of one look at the run.
   *
   * @param events what to send, in order
   * @param seen how many of the run's records they cover: where the next look starts
   * @param ended whether the last event ends the stream
   */
  public record Batch(List<Event> events, int seen, boolean ended) {}
}
