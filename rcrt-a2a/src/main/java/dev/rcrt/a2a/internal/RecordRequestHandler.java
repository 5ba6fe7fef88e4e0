package dev.rcrt.a2a.internal;

import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.Run;
import dev.rcrt.agent.Runs;
import dev.rcrt.agent.UserMessage;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.Principal;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.TimeSource;
import dev.rcrt.core.ValidationException;
import dev.rcrt.core.spi.Throwables;
import io.a2a.server.ServerCallContext;
import io.a2a.server.requesthandlers.RequestHandler;
import io.a2a.spec.ContentTypeNotSupportedError;
import io.a2a.spec.DataPart;
import io.a2a.spec.DeleteTaskPushNotificationConfigParams;
import io.a2a.spec.EventKind;
import io.a2a.spec.FilePart;
import io.a2a.spec.GetTaskPushNotificationConfigParams;
import io.a2a.spec.InternalError;
import io.a2a.spec.InvalidParamsError;
import io.a2a.spec.JSONRPCError;
import io.a2a.spec.ListTaskPushNotificationConfigParams;
import io.a2a.spec.Message;
import io.a2a.spec.MessageSendParams;
import io.a2a.spec.Part;
import io.a2a.spec.PushNotificationNotSupportedError;
import io.a2a.spec.StreamingEventKind;
import io.a2a.spec.Task;
import io.a2a.spec.TaskIdParams;
import io.a2a.spec.TaskNotCancelableError;
import io.a2a.spec.TaskNotFoundError;
import io.a2a.spec.TaskPushNotificationConfig;
import io.a2a.spec.TaskQueryParams;
import io.a2a.spec.TaskState;
import io.a2a.spec.TextPart;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.Flow;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The A2A SDK's {@link RequestHandler} for one agent, on records: a message is the agent's {@code
 * user.message.v1} in session {@code a2a:<contextId>} and its run is the task; the task is an
 * {@code a2a.task.v1} record ({@link TaskRecords}) and its state is read from the run's records
 * ({@link RunTasks}), so {@code tasks/get}, {@code tasks/cancel} and {@code tasks/resubscribe}
 * work in any process serving the store. A reply to a task in {@code input-required} is the
 * approval decision for the calls it waits on, written as {@link #CALLER}. Push notifications are
 * not offered.
 *
 * <p>Nothing but {@link JSONRPCError}s leaves: any other failure is logged with a reference and
 * answered as an internal error that names only the reference.
 */
public final class RecordRequestHandler implements RequestHandler {
  /** Who an A2A caller's approval decisions are written as. */
  public static final Principal CALLER = Principal.ofWriter("user:a2a-caller");

  private static final Logger LOG = LoggerFactory.getLogger(RecordRequestHandler.class);
  private static final Pattern CONTEXT_ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

  private final AgentDefinition agent;
  private final String agentId;
  private final BreadcrumbStore store;
  private final ServedAgents agents;
  private final TaskRecords tasks;
  private final Runs runs;
  private final Limits limits;
  private final Executor streams;
  private final TimeSource time;

  /**
   * Bounds of one agent's handling.
   *
   * @param maxMessageChars the most characters of text one message may carry
   * @param maxWait how long a blocking {@code message/send}, and a stream, follow a task before
   *     answering with it as it stands (on the runner's {@link TimeSource})
   */
  public record Limits(int maxMessageChars, Duration maxWait) {}

  /**
   * @param agent the version of the agent's record this request read (the newest one served runs it)
   * @param streams where the reads that follow a task run, one at a time per follower
   * @param time the runner's time source: {@link Limits#maxWait()} passes on it
   */
  public RecordRequestHandler(AgentDefinition agent, BreadcrumbStore store, ServedAgents agents, Runs runs, Limits limits, Executor streams,
      TimeSource time) {
    this.agent = agent;
    this.agentId = agent.agentId();
    this.store = store;
    this.agents = agents;
    this.tasks = new TaskRecords(store);
    this.runs = runs;
    this.limits = limits;
    this.streams = streams;
    this.time = time;
  }

  @Override
  public Task onGetTask(TaskQueryParams params, ServerCallContext context) throws JSONRPCError {
    return guarded(() -> {
      Task task = now(find(params.id()));
      return params.historyLength() > 0 ? trimmed(task, params.historyLength()) : task;
    });
  }

  @Override
  public Task onCancelTask(TaskIdParams params, ServerCallContext context) throws JSONRPCError {
    return guarded(() -> {
      TaskRecords.Entry entry = find(params.id());
      Task task = now(entry);
      if (task.getStatus().state().isFinal()) {
        throw new TaskNotCancelableError("task " + entry.taskId() + " is already " + task.getStatus().state().asString());
      }
      Breadcrumb message = store.get(entry.messageId())
          .orElseThrow(() -> new TaskNotCancelableError("task " + entry.taskId() + " has lost its message record; it cannot be cancelled"));
      runs.cancel(entry.agentId(), message, "cancelled by the A2A caller");
      return now(entry);
    });
  }

  @Override
  public EventKind onMessageSend(MessageSendParams params, ServerCallContext context) throws JSONRPCError {
    return guarded(() -> {
      TaskRecords.Entry entry = accept(params.message());
      boolean blocking = params.configuration() == null || !Boolean.FALSE.equals(params.configuration().blocking());
      Task task = blocking ? settled(entry) : now(entry);
      Integer history = params.configuration() == null ? null : params.configuration().historyLength();
      return history != null && history > 0 ? trimmed(task, history) : task;
    });
  }

  @Override
  public Flow.Publisher<StreamingEventKind> onMessageSendStream(MessageSendParams params, ServerCallContext context) throws JSONRPCError {
    String replyTo = params.message().getTaskId();
    int seen = replyTo == null ? 0 : guarded(() -> runs.show(find(replyTo).runId()).map(r -> r.records().size()).orElse(0));
    TaskRecords.Entry entry = guarded(() -> accept(params.message()));
    return new TaskStream(entry, store, runs, streams, time, limits.maxWait(), seen, gone(context));
  }

  @Override
  public Flow.Publisher<StreamingEventKind> onResubscribeToTask(TaskIdParams params, ServerCallContext context) throws JSONRPCError {
    TaskRecords.Entry entry = guarded(() -> find(params.id()));
    int seen = guarded(() -> runs.show(entry.runId()).map(r -> r.records().size()).orElse(0));
    return new TaskStream(entry, store, runs, streams, time, limits.maxWait(), seen, gone(context));
  }

  @Override
  public TaskPushNotificationConfig onSetTaskPushNotificationConfig(TaskPushNotificationConfig params, ServerCallContext context)
      throws JSONRPCError {
    throw new PushNotificationNotSupportedError();
  }

  @Override
  public TaskPushNotificationConfig onGetTaskPushNotificationConfig(GetTaskPushNotificationConfigParams params, ServerCallContext context)
      throws JSONRPCError {
    throw new PushNotificationNotSupportedError();
  }

  @Override
  public List<TaskPushNotificationConfig> onListTaskPushNotificationConfig(ListTaskPushNotificationConfigParams params, ServerCallContext context)
      throws JSONRPCError {
    throw new PushNotificationNotSupportedError();
  }

  @Override
  public void onDeleteTaskPushNotificationConfig(DeleteTaskPushNotificationConfigParams params, ServerCallContext context) throws JSONRPCError {
    throw new PushNotificationNotSupportedError();
  }

  /** A new task for a message without a task id; for one with a task id, the reply to a task that waits for input. */
  private TaskRecords.Entry accept(Message message) {
    String text = text(message);
    if (message.getTaskId() != null) {
      return reply(find(message.getTaskId()), message);
    }
    String contextId = message.getContextId() == null ? UUID.randomUUID().toString() : message.getContextId();
    if (!CONTEXT_ID.matcher(contextId).matches()) {
      throw new InvalidParamsError("contextId must be 1 to 128 of A-Z a-z 0-9 . _ : -, found " + "'" + excerpt(contextId) + "'");
    }
    Breadcrumb question = store.create(new UserMessage("a2a:" + contextId, text).toBreadcrumb());
    String taskId = UUID.randomUUID().toString();
    Message first = new Message.Builder(message).taskId(taskId).contextId(contextId).build();
    TaskRecords.Entry entry = tasks.create(taskId, contextId, agentId, agents.runIdOf(agent, question), question.id(), first);
    agents.answer(agent, question);
    return entry;
  }

  /**
   * The caller's answer to a task that is {@code input-required}: an explicit decision on the call
   * that waits for approval ({@link ApprovalReply}), or the values a tool's question asks for
   * ({@link InputReply}); either names its call, or there is a single one waiting.
   */
  private TaskRecords.Entry reply(TaskRecords.Entry entry, Message message) {
    Optional<Run> run = runs.show(entry.runId());
    TaskState state = RunTasks.status(entry, run).state();
    if (state != TaskState.INPUT_REQUIRED) {
      throw new InvalidParamsError("task " + entry.taskId() + " is " + state.asString() + " and takes no reply"
          + (state.isFinal() ? "; send a message without taskId (the same contextId keeps the conversation) to start a new task"
              : "; follow it with tasks/get or tasks/resubscribe"));
    }
    Run waiting = run.orElseThrow();
    try {
      if (waiting.status() == Run.Status.WAITING_FOR_INPUT) {
        InputReply answered = InputReply.of(message, waiting, entry.taskId());
        runs.answer(entry.runId(), answered.callId(), answered.answer(), CALLER);
      } else {
        ApprovalReply decided = ApprovalReply.of(message, waiting, entry.taskId());
        if (decided.approve()) {
          runs.approve(entry.runId(), decided.callId(), CALLER, decided.reason());
        } else {
          runs.deny(entry.runId(), decided.callId(), CALLER, decided.reason());
        }
      }
    } catch (dev.rcrt.core.ValidationException refused) { // an answer that does not fit, a question that ran out: the caller's to mend
      throw new InvalidParamsError("task " + entry.taskId() + ": " + refused.getMessage());
    }
    return tasks.append(entry, new Message.Builder(message).contextId(entry.contextId()).build());
  }

  /** The message's text: its text parts, and its data parts as JSON, joined by blank lines. */
  private String text(Message message) {
    if (message.getRole() != Message.Role.USER) {
      throw new InvalidParamsError("a message to an agent has role \"user\"");
    }
    List<String> texts = new ArrayList<>();
    for (Part<?> part : message.getParts()) {
      if (part instanceof TextPart t) {
        texts.add(t.getText());
      } else if (part instanceof DataPart d) {
        texts.add(RcrtJson.write(RcrtJson.toTree(d.getData())));
      } else if (part instanceof FilePart) {
        throw new ContentTypeNotSupportedError(null, "this agent takes text and data parts, not files", null);
      }
    }
    String text = String.join("\n\n", texts);
    if (text.isBlank()) {
      throw new InvalidParamsError("the message has no text: send a text part");
    }
    if (text.length() > limits.maxMessageChars()) {
      throw new InvalidParamsError("the message has " + text.length() + " characters; this agent takes at most " + limits.maxMessageChars());
    }
    return text;
  }

  private TaskRecords.Entry find(String taskId) {
    return tasks.find(taskId).filter(e -> e.agentId().equals(agentId)).orElseThrow(TaskNotFoundError::new);
  }

  private Task now(TaskRecords.Entry entry) {
    return RunTasks.task(entry, runs.show(entry.runId()));
  }

  /**
   * The task once it is final or waits for input, or as it stands after {@link Limits#maxWait()}:
   * read when the store reports a record of its run ({@link RunWatch}), never by polling.
   */
  private Task settled(TaskRecords.Entry entry) {
    CompletableFuture<Task> settled = new CompletableFuture<>();
    try (RunWatch watch = new RunWatch(store, entry.runId(), streams, () -> {
      try {
        Task task = now(entry);
        TaskState state = task.getStatus().state();
        if (state.isFinal() || state == TaskState.INPUT_REQUIRED) {
          settled.complete(task);
        }
      } catch (RuntimeException e) {
        settled.completeExceptionally(e);
      }
    })) {
      watch.poke();
      return time.orTimeout(settled, limits.maxWait()).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InternalError("the server is stopping");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof TimeoutException) {
        return now(entry);
      }
      throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
    }
  }

  private static Task trimmed(Task task, int historyLength) {
    List<Message> history = task.getHistory();
    if (history == null || history.size() <= historyLength) {
      return task;
    }
    return new Task.Builder(task).history(history.subList(history.size() - historyLength, history.size())).build();
  }

  /** The flag the transport sets when the caller of a stream goes away, or one nobody sets. */
  private static java.util.concurrent.atomic.AtomicBoolean gone(ServerCallContext context) {
    return context.getState().get(TaskStream.CALLER_GONE) instanceof java.util.concurrent.atomic.AtomicBoolean flag
        ? flag : new java.util.concurrent.atomic.AtomicBoolean();
  }

  private static String excerpt(String s) {
    return s.length() <= 40 ? s : s.substring(0, 40) + "…";
  }

  /** Runs {@code work}; a failure that is not a {@link JSONRPCError} is logged and answered by reference only. */
  private static <T> T guarded(Supplier<T> work) throws JSONRPCError {
    try {
      return work.get();
    } catch (JSONRPCError e) {
      throw e;
    } catch (ValidationException e) {
      // a store's refusal of what the caller sent says what and where, and holds no secret values
      throw new InvalidParamsError(e.getMessage());
    } catch (Throwable t) {
      Throwables.rethrowIfFatal(t);
      String ref = UUID.randomUUID().toString().substring(0, 8);
      LOG.error("A2A request failed (ref {})", ref, t);
      throw new InternalError("the agent server failed (ref " + ref + "; its log has the details)");
    }
  }
}
