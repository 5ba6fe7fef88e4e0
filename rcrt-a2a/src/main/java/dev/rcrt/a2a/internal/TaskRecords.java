package dev.rcrt.a2a.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.BreadcrumbUpdate;
import dev.rcrt.core.ConflictException;
import dev.rcrt.core.Principal;
import dev.rcrt.core.RcrtJson;
import io.a2a.spec.Message;
import io.a2a.util.Utils;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A2A tasks kept as {@code a2a.task.v1} records: {@code {task_id, context_id, agent_id, run_id,
 * message_id, history: [A2A messages the caller sent]}}, the record's id being the task id. The task's state is
 * not kept here: it is read from the agent run the record names ({@link RunTasks}), so any process
 * serving the same store answers for it, before and after a restart. Only records the host wrote
 * are read: a tool or an agent cannot plant a task that points at another run.
 */
public final class TaskRecords {
  /** The schema of task records. */
  public static final String SCHEMA = "a2a.task.v1";

  private static final Logger LOG = LoggerFactory.getLogger(TaskRecords.class);

  private final BreadcrumbStore store;

  /**
   * One task as recorded.
   *
   * @param messageId the run's {@code user.message.v1}
   * @param history the caller's messages, oldest first
   * @param version the record's version, for the next append
   */
  public record Entry(String taskId, String contextId, String agentId, String runId, String messageId, List<Message> history, long version) {
    /** Copies. */
    public Entry {
      history = List.copyOf(history);
    }
  }

  public TaskRecords(BreadcrumbStore store) {
    this.store = store;
  }

  /** Records a new task of run {@code runId}, started by {@code first}. */
  public Entry create(String taskId, String contextId, String agentId, String runId, String messageId, Message first) {
    ObjectNode context = RcrtJson.object()
        .put("task_id", taskId).put("context_id", contextId).put("agent_id", agentId).put("run_id", runId).put("message_id", messageId);
    context.putArray("history").add(json(first));
    Breadcrumb b = store.create(BreadcrumbCreate.builder(SCHEMA, "A2A task " + taskId)
        .id(taskId)
        .tags("a2a:task", "agent:" + agentId, "run:" + runId)
        .context(context)
        .build());
    return read(b).orElseThrow();
  }

  /** The task with id {@code taskId}, if the host recorded one. */
  public Optional<Entry> find(String taskId) {
    try {
      UUID.fromString(taskId);
    } catch (IllegalArgumentException e) {
      return Optional.empty(); // task ids this server gives are UUIDs
    }
    return store.get(taskId).flatMap(TaskRecords::read);
  }

  /** Adds the caller's {@code reply} to the task's history; retried on a concurrent write. */
  public Entry append(Entry task, Message reply) {
    for (int attempt = 0; attempt < 5; attempt++) {
      Breadcrumb b = store.get(task.taskId()).orElseThrow();
      ObjectNode context = ((ObjectNode) b.context()).deepCopy();
      context.withArray("history").add(json(reply));
      try {
        return read(store.update(b.id(), b.version(), BreadcrumbUpdate.ofContext(context))).orElseThrow();
      } catch (ConflictException e) {
        // written meanwhile: read it again and add the reply to what is there now
      }
    }
    throw new IllegalStateException("task " + task.taskId() + " is being written by others; try again");
  }

  private static JsonNode json(Message message) {
    return Utils.OBJECT_MAPPER.valueToTree(message);
  }

  private static Optional<Entry> read(Breadcrumb b) {
    if (!SCHEMA.equals(b.schemaName())) {
      return Optional.empty();
    }
    if (!Principal.writerOf(b).isHost()) {
      LOG.warn("A2A task record '{}' ignored: written by {}, not by the host", b.id(), Principal.writerOf(b));
      return Optional.empty();
    }
    JsonNode c = b.context();
    List<Message> history = new ArrayList<>();
    try {
      for (JsonNode m : c.path("history")) {
        history.add(Utils.OBJECT_MAPPER.treeToValue(m, Message.class));
      }
    } catch (com.fasterxml.jackson.core.JsonProcessingException | IllegalArgumentException e) {
      LOG.warn("A2A task record '{}' ignored: its history is not A2A messages ({})", b.id(), e.getMessage());
      return Optional.empty();
    }
    String taskId = c.path("task_id").asText("");
    String contextId = c.path("context_id").asText("");
    String agentId = c.path("agent_id").asText("");
    String runId = c.path("run_id").asText("");
    String messageId = c.path("message_id").asText("");
    if (taskId.isEmpty() || contextId.isEmpty() || agentId.isEmpty() || runId.isEmpty() || messageId.isEmpty()) {
      LOG.warn("A2A task record '{}' ignored: task_id, context_id, agent_id, run_id and message_id are required", b.id());
      return Optional.empty();
    }
    return Optional.of(new Entry(taskId, contextId, agentId, runId, messageId, history, b.version()));
  }
}
