package dev.rcrt.a2a.internal;

import dev.rcrt.agent.AgentResponse;
import dev.rcrt.agent.Run;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.RcrtJson;
import io.a2a.spec.Artifact;
import io.a2a.spec.Message;
import io.a2a.spec.Part;
import io.a2a.spec.StreamingEventKind;
import io.a2a.spec.Task;
import io.a2a.spec.TaskArtifactUpdateEvent;
import io.a2a.spec.TaskState;
import io.a2a.spec.TaskStatus;
import io.a2a.spec.TaskStatusUpdateEvent;
import io.a2a.spec.TextPart;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * An A2A task as the records of its agent run tell it: the run's status is the task's state, its
 * answer the task's artifact, and each tool request and response of the run a status update. A
 * function of the records alone, so every process, and a process that starts later, tells the same
 * task alike (A2A 0.3.0 {@code Task}, {@code TaskStatusUpdateEvent}, {@code
 * TaskArtifactUpdateEvent}).
 *
 * <p>Status messages name tools and call ids, never a tool's input or output: the answer is what
 * the caller asked for; what the tools saw stays in the trail.
 */
public final class RunTasks {
  /** The artifact's id and name: one per task, the agent's answer. */
  static final String ANSWER = "answer";

  private RunTasks() {}

  /** The task now: its state, last status message, the answer's artifact once there is one, and the history. */
  public static Task task(TaskRecords.Entry entry, Optional<Run> run) {
    TaskStatus status = status(entry, run);
    List<Message> history = new ArrayList<>(entry.history());
    List<Artifact> artifacts = new ArrayList<>();
    AgentResponse answer = run.map(Run::answer).orElse(null);
    if (answer != null && answer.status() != AgentResponse.Status.CANCELLED) {
      if (answer.status() != AgentResponse.Status.ERROR) {
        artifacts.add(artifact(answer));
      }
      history.add(agentMessage(entry, answer.message()));
    }
    return new Task.Builder()
        .id(entry.taskId())
        .contextId(entry.contextId())
        .status(status)
        .artifacts(artifacts)
        .history(history)
        .metadata(Map.of("rcrt_run_id", entry.runId(), "rcrt_agent_id", entry.agentId()))
        .build();
  }

  /** The state the task is in, with a message saying what it waits for or how it ended. */
  static TaskStatus status(TaskRecords.Entry entry, Optional<Run> run) {
    if (run.isEmpty()) {
      return new TaskStatus(TaskState.SUBMITTED, null, null);
    }
    Run r = run.get();
    OffsetDateTime at = OffsetDateTime.ofInstant(r.updatedAt(), ZoneOffset.UTC);
    return switch (r.status()) {
      case RUNNING, WAITING_FOR_TOOLS -> new TaskStatus(TaskState.WORKING, null, at);
      case WAITING_FOR_APPROVAL -> new TaskStatus(TaskState.INPUT_REQUIRED, agentMessage(entry, approvalQuestion(r)), at);
      case WAITING_FOR_INPUT -> new TaskStatus(TaskState.INPUT_REQUIRED, agentMessage(entry, inputQuestion(r)), at);
      case DONE -> new TaskStatus(TaskState.COMPLETED, null, at);
      case FAILED -> new TaskStatus(TaskState.FAILED, agentMessage(entry, r.answer() == null ? "the run failed" : failure(r.answer())), at);
      case CANCELLED -> new TaskStatus(TaskState.CANCELED, null, at);
    };
  }

  /** What the caller is asked when a call waits for approval: which tools, and how to answer. */
  static String approvalQuestion(Run run) {
    StringBuilder text = new StringBuilder("Approval needed before the agent goes on: ");
    List<String> calls = new ArrayList<>();
    for (Run.PendingCall call : run.pending()) {
      if (call.approval() != null) {
        calls.add("tool '" + call.tool() + "' (call " + call.requestId() + ")");
      }
    }
    text.append(String.join(", ", calls)).append(". Reply \"approve\" or \"deny\" in this task (the whole text), or a data part {\"decision\": \"approve\"|\"deny\", \"call_id\": …, \"reason\": …}.");
    return text.toString();
  }

  /** What the caller is asked when a tool's question waits: the question, what the answer must fit, and how to answer. */
  static String inputQuestion(Run run) {
    List<String> asked = new ArrayList<>();
    for (Run.PendingCall call : run.pending()) {
      if (call.question() != null) {
        asked.add("tool '" + call.tool() + "' (call " + call.requestId() + ") asks: " + call.question().message() + " (values: "
            + dev.rcrt.core.RcrtJson.write(call.question().requestedSchema()) + ")");
      }
    }
    return String.join("; ", asked) + ". Reply in this task with a data part {\"content\": {…}, \"call_id\": …}, or"
        + " {\"action\": \"decline\"|\"cancel\"}.";
  }

  private static String failure(AgentResponse answer) {
    return answer.error() == null ? answer.message() : answer.error().code() + ": " + answer.error().message();
  }

  /**
   * What happened after the first {@code seen} records of the run: a status update for each tool
   * request and response, then, once the run stands still (waits for approval, or ended), the
   * artifact and the final status. {@code final} is set on the last event when the task is in a
   * final or interrupted state, as A2A streams end there.
   *
   * @return the events, and how many of the run's records they cover
   */
  public static Events events(TaskRecords.Entry entry, Optional<Run> run, int seen) {
    List<StreamingEventKind> out = new ArrayList<>();
    if (run.isEmpty()) {
      return new Events(out, seen, false);
    }
    Run r = run.get();
    List<Breadcrumb> records = r.records();
    for (int i = seen; i < records.size(); i++) {
      String step = step(records.get(i));
      if (step != null) {
        out.add(update(entry, new TaskStatus(TaskState.WORKING, agentMessage(entry, step), at(records.get(i))), false));
      }
    }
    TaskStatus status = status(entry, run);
    boolean settled = status.state().isFinal() || status.state() == TaskState.INPUT_REQUIRED;
    if (settled) {
      if (r.answer() != null && r.status() == Run.Status.DONE) {
        out.add(new TaskArtifactUpdateEvent.Builder()
            .taskId(entry.taskId()).contextId(entry.contextId()).artifact(artifact(r.answer())).lastChunk(true).build());
      }
      out.add(update(entry, status, true));
    }
    return new Events(out, records.size(), settled);
  }

  /**
   * Events to send, and where the next look starts.
   *
   * @param seen how many of the run's records these events cover
   * @param settled whether the last event is final: the stream ends with it
   */
  public record Events(List<StreamingEventKind> events, int seen, boolean settled) {}

  /** A status message for a step of the run, or null for records that are not one (rounds, decisions). */
  private static @Nullable String step(Breadcrumb record) {
    String tool = record.contextText("tool");
    return switch (record.schemaName()) {
      case "tool.request.v1" -> "Calling tool '" + tool + "'";
      case "tool.response.v1" -> "Tool '" + tool + "' answered: " + record.contextText("status");
      case "approval.decision.v1" -> "Approval decided: " + RcrtJson.write(record.context().path("approved"));
      default -> null;
    };
  }

  private static TaskStatusUpdateEvent update(TaskRecords.Entry entry, TaskStatus status, boolean last) {
    return new TaskStatusUpdateEvent.Builder()
        .taskId(entry.taskId()).contextId(entry.contextId()).status(status).isFinal(last).build();
  }

  private static OffsetDateTime at(Breadcrumb record) {
    return OffsetDateTime.ofInstant(record.updatedAt(), ZoneOffset.UTC);
  }

  private static Artifact artifact(AgentResponse answer) {
    return new Artifact.Builder().artifactId(ANSWER).name(ANSWER).parts(List.of(new TextPart(answer.message()))).build();
  }

  /** A message from the agent in this task; its id is derived, so every process writes it alike. */
  static Message agentMessage(TaskRecords.Entry entry, String text) {
    List<Part<?>> parts = List.of(new TextPart(text));
    return new Message.Builder()
        .role(Message.Role.AGENT)
        .parts(parts)
        .messageId(java.util.UUID.nameUUIDFromBytes((entry.taskId() + "\n" + text).getBytes(java.nio.charset.StandardCharsets.UTF_8)).toString())
        .contextId(entry.contextId())
        .taskId(entry.taskId())
        .build();
  }
}
