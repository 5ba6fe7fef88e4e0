package dev.rcrt.agui.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.a2a.internal.RunWatch;
import dev.rcrt.a2a.internal.ServedAgents;
import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.Run;
import dev.rcrt.agent.Runs;
import dev.rcrt.agent.UserMessage;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.ConflictException;
import dev.rcrt.core.NotFoundException;
import dev.rcrt.core.Principal;
import dev.rcrt.core.Subscription;
import dev.rcrt.core.TimeSource;
import dev.rcrt.core.ValidationException;
import dev.rcrt.core.spi.Excerpts;
import dev.rcrt.tools.ToolExchange;
import dev.rcrt.tools.ToolTrustPolicy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * What an AG-UI request does to the records, and the stream it gets back. A new user message is
 * written as the agent's {@code user.message.v1} in session {@code agui:<threadId>} (idempotent on
 * the thread and the message's id, so a client that posts the same input again follows the same
 * run) and answered by a durable run of the agent's executor. A resume writes, for each entry, the
 * approval decision or the answer to the tool's question, as {@code caller} (which counts only
 * where the runner lists it as an approver), on the call its {@code interruptId} names, which must
 * belong to a run of this agent in this thread. Then the run's events ({@link RunEvents}) are sent
 * as its records are written, in any process of the store ({@link RunWatch}: nothing polls), with
 * the text of the rounds this process asks as the model streams it ({@link LiveText}), until
 * the run stands still, or {@code maxWait} passes on {@code time} (the stream then ends without an
 * end event; the client posts again with {@code Last-Event-ID}).
 */
public final class RunStreams implements AgUiEndpoint.Runs {
  private final BreadcrumbStore store;
  private final Runs runs;
  private final ServedAgents executors;
  private final Function<String, @Nullable AgentDefinition> agents;
  private final ToolTrustPolicy policy;
  private final TimeSource time;
  private final Duration maxWait;
  private final Principal caller;

  /**
   * @param agents the served agent of an id (its record the host's), or null when it is not served
   */
  public RunStreams(BreadcrumbStore store, Runs runs, ServedAgents executors, Function<String, @Nullable AgentDefinition> agents,
      ToolTrustPolicy policy, TimeSource time, Duration maxWait, Principal caller) {
    this.store = store;
    this.runs = runs;
    this.executors = executors;
    this.agents = agents;
    this.policy = policy;
    this.time = time;
    this.maxWait = maxWait;
    this.caller = caller;
  }

  @Override
  public void run(String agentId, RunInput input, @Nullable String lastEventId, AgUiEndpoint.Events out) throws IOException {
    // the stream's time counts from the request, before anything of the run is written
    Semaphore changed = new Semaphore(0);
    AtomicBoolean timeUp = new AtomicBoolean();
    TimeSource.Timer deadline = time.schedule(maxWait, () -> {
      timeUp.set(true);
      changed.release();
    });
    try {
      stream(agentId, input, lastEventId, out, changed, timeUp);
    } finally {
      deadline.cancel();
    }
  }

  private void stream(String agentId, RunInput input, @Nullable String lastEventId, AgUiEndpoint.Events out, Semaphore changed,
      AtomicBoolean timeUp) throws IOException {
    AgentDefinition agent = agents.apply(agentId);
    if (agent == null) {
      throw new NotFoundException("no agent here: no trusted agent record '" + Excerpts.escaped(agentId, 128) + "'");
    }
    String session = "agui:" + input.threadId();
    Position after = Position.of(lastEventId);
    if (input.resume().isEmpty()) {
      String key = "agui:" + agentId + ":" + input.threadId() + ":" + input.messageId();
      BreadcrumbCreate message = new UserMessage(session, java.util.Objects.requireNonNull(input.text())).toBreadcrumb().withIdempotencyKey(key);
      // the message's id follows from its key, so its run is followed before the message exists: a process that serves the
      // agent's runs may start the run the moment it is written, and its first round then streams here too
      String id = UUID.nameUUIDFromBytes(key.getBytes(StandardCharsets.UTF_8)).toString();
      String runId = Run.idOf(agent.agentId(), id);
      LiveText text = live(runId, after, changed);
      Subscription streaming = executors.streamText(agent, runId, text);
      try {
        Breadcrumb question = write(message, id);
        if (!question.id().equals(id)) { // posted before message ids followed from keys: the run of the message as stored
          streaming.close();
          runId = executors.runIdOf(agent, question);
          text = live(runId, after, changed);
          streaming = executors.streamText(agent, runId, text);
        }
        executors.answer(agent, question);
        follow(runId, started(0, after, input, out), after, input, out, text, changed, timeUp);
      } finally {
        streaming.close();
      }
    } else {
      Run run = interrupted(agentId, session, input);
      LiveText text = live(run.id(), after, changed);
      try (Subscription streaming = executors.streamText(agent, run.id(), text)) {
        for (RunInput.Resume r : input.resume()) {
          decide(run, r);
        }
        // this process takes the run up, unless another holds it
        store.get(run.triggerId()).ifPresent(message -> executors.answer(agent, message));
        follow(run.id(), started(run.records().size(), after, input, out), after, input, out, text, changed, timeUp);
      }
    }
  }

  /** Writes the user message under {@code id}, or under an id of the store's when a record another writer made holds that one. */
  private Breadcrumb write(BreadcrumbCreate message, String id) {
    try {
      return store.create(message.withId(id));
    } catch (ConflictException taken) {
      return store.create(message);
    }
  }

  /** The stream's text as it streams: where the client's last event left it, when that was such text. */
  private static LiveText live(String runId, @Nullable Position after, Semaphore changed) {
    LiveText text = new LiveText(runId, changed::release);
    if (after != null && after.textRound() > 0) {
      text.resume(after.textRound(), after.textChars());
    }
    return text;
  }

  /**
   * Where the events to send start: a new stream's {@code RUN_STARTED} goes out at once (its
   * records from {@code from} on follow); a resumed one starts at the record of its {@code Last-Event-ID}.
   */
  private static int started(int from, @Nullable Position after, RunInput input, AgUiEndpoint.Events out) throws IOException {
    if (after != null) {
      return after.record;
    }
    out.send("start." + from, RunEvents.event("RUN_STARTED").put("threadId", input.threadId()).put("runId", input.runId()));
    return from;
  }

  /** The run whose calls the resume entries name: one run, of this agent, in this thread. */
  private Run interrupted(String agentId, String session, RunInput input) {
    String runId = null;
    for (RunInput.Resume r : input.resume()) {
      Breadcrumb request = store.get(r.interruptId())
          .orElseThrow(() -> new NotFoundException("no interrupt '" + r.interruptId() + "': no such call"));
      String of = request.tagValue("run:").orElse(null);
      if (of == null || runId != null && !runId.equals(of)) {
        throw new ValidationException("resume entries must name the interrupts of one run; '" + r.interruptId() + "' is not one of them");
      }
      runId = of;
    }
    Run run = runs.show(java.util.Objects.requireNonNull(runId)).orElseThrow(() -> new NotFoundException("no run of interrupt"));
    if (!run.agentId().equals(agentId) || !run.sessionId().equals(session)) {
      throw new NotFoundException("no interrupt '" + input.resume().get(0).interruptId() + "' in thread '" + input.threadId() + "' of agent '" + agentId + "'");
    }
    return run;
  }

  /** Writes the caller's answer to one interrupt; one already answered is passed over (a resume may be sent again). */
  private void decide(Run run, RunInput.Resume r) {
    Run.PendingCall call = run.pending().stream().filter(p -> p.requestId().equals(r.interruptId())).findFirst().orElse(null);
    if (call == null || call.approval() == null && call.question() == null) {
      return;
    }
    JsonNode payload = r.payload();
    if (call.approval() != null) {
      if (r.resolved() && (payload == null || !payload.path("approved").isBoolean())) {
        throw new ValidationException("the resume of approval interrupt '" + r.interruptId() + "' needs payload {\"approved\": true|false, \"reason\"?}");
      }
      String reason = payload == null || !payload.path("reason").isTextual() ? null : payload.path("reason").asText();
      if (r.resolved() && payload != null && payload.path("approved").asBoolean()) {
        runs.approve(run.id(), call.requestId(), caller, reason);
      } else {
        runs.deny(run.id(), call.requestId(), caller, r.resolved() ? reason : "cancelled by the user");
      }
      return;
    }
    ToolExchange.Elicited answer = !r.resolved() ? new ToolExchange.Elicited(ToolExchange.Elicited.Action.CANCEL, null)
        : new ToolExchange.Elicited(ToolExchange.Elicited.Action.ACCEPT, payload == null ? dev.rcrt.core.RcrtJson.object() : payload);
    runs.answer(run.id(), call.requestId(), answer, caller);
  }

  /** Sends the run's events from record {@code from} on, as they are written, until it stands still or the time is up. */
  private void follow(String runId, int from, @Nullable Position after, RunInput input, AgUiEndpoint.Events out, LiveText text,
      Semaphore changed, AtomicBoolean timeUp) throws IOException {
    // the run's records are read again when one was written, or a round's text begins (the records before it are written by
    // then, even when their events come later), not for each fragment of text that streams
    AtomicBoolean written = new AtomicBoolean(true);
    try (RunWatch watch = new RunWatch(store, runId, Runnable::run, () -> {
      written.set(true);
      changed.release();
    })) {
      try {
        int seen = from;
        while (true) {
          java.util.Set<Integer> starting = text.starting();
          Optional<Run> run = written.getAndSet(false) | !starting.isEmpty() ? runs.show(runId) : Optional.empty();
          if (run.isPresent()) {
            RunEvents.Batch batch = RunEvents.after(run.get(), seen, input.threadId(), input.runId(), policy);
            for (RunEvents.Event e : batch.events()) {
              if (after == null || after.before(e.id())) {
                text.send(e, out);
              }
            }
            seen = batch.seen();
            if (batch.ended()) {
              return;
            }
          }
          // after the records: text comes after what was recorded before its round (a record read above already told its own)
          if (text.sendStreamed(out, seen, starting)) {
            continue; // a round's first words came after the records were read: read them again first
          }
          changed.acquire();
          changed.drainPermits();
          if (timeUp.get()) {
            return;
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Where an event id stands: the record it tells and its place among that record's events; for
   * text as it streamed ({@code live.<records told>.<round>.<characters>}), the records told and
   * how much of which round's text the client has.
   */
  private record Position(int record, int k, int textRound, int textChars) {
    Position(int record, int k) {
      this(record, k, 0, 0);
    }

    /** The position of {@code id}, or null for none; an id this server did not give is refused. */
    static @Nullable Position of(@Nullable String id) {
      if (id == null || id.isBlank()) {
        return null;
      }
      String[] parts = id.strip().split("\\.", 2);
      try {
        if (parts.length == 2 && parts[0].equals("live")) {
          String[] at = parts[1].split("\\.", -1);
          if (at.length == 3) {
            int record = Integer.parseInt(at[0]);
            int round = Integer.parseInt(at[1]);
            int chars = Integer.parseInt(at[2]);
            if (record >= 0 && round >= 1 && chars >= 0) {
              return new Position(record, -1, round, chars);
            }
          }
        } else if (parts.length == 2 && (parts[0].equals("start") || parts[0].equals("end"))) {
          int record = Integer.parseInt(parts[1]);
          if (record >= 0) {
            return new Position(record, parts[0].equals("start") ? -1 : Integer.MAX_VALUE);
          }
        } else if (parts.length == 2) {
          int record = Integer.parseInt(parts[0]);
          int k = Integer.parseInt(parts[1]);
          if (record >= 0 && k >= 0) {
            return new Position(record, k);
          }
        }
      } catch (NumberFormatException e) {
        // refused below
      }
      throw new ValidationException("Last-Event-ID '" + Excerpts.escaped(id, 40) + "' is not an event id of this server");
    }

    /** Whether the event {@code id} comes after this position. */
    boolean before(String id) {
      String[] parts = id.split("\\.", 2);
      if (parts[0].equals("end")) {
        return k != Integer.MAX_VALUE;
      }
      int r = Integer.parseInt(parts[0]);
      int kk = Integer.parseInt(parts[1]);
      return r > record || r == record && kk > k;
    }
  }
}
