package dev.rcrt.agent.internal.loop;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.AgentException;
import dev.rcrt.agent.AgentResponse;
import dev.rcrt.agent.Run;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.ClaimLostException;
import dev.rcrt.core.ConflictException;
import dev.rcrt.core.Principal;
import dev.rcrt.core.Selector;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import dev.rcrt.core.WorkClaims;
import dev.rcrt.core.spi.Leases;
import dev.rcrt.core.spi.Throwables;
import dev.rcrt.llm.ToolCall;
import dev.rcrt.tools.ApprovalRequest;
import dev.rcrt.tools.ToolCallOptions;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolContext;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolHandler;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Dispatch: the calls of one recorded round, run concurrently on the turn's pool, each through
 * the {@link ToolRunner}'s chain (trust, approval, validation, the {@code tool.request.v1} / {@code
 * tool.response.v1} trail) as {@code agent:<agent_id>}, pinned to the tool version the model was
 * offered, tagged with the session and the run. A call that waits (for an approval decision, an
 * answer to its tool's question, or a listening runner in event mode) holds no thread: the run says what it waits for and is
 * taken up again when the record arrives. Thread-safe.
 */
final class CallDispatcher {
  private static final Logger LOG = LoggerFactory.getLogger(CallDispatcher.class);

  /** The loop of a specialist's child runs, one level deeper, its parallel calls on {@code pool}. */
  @FunctionalInterface
  interface Specialists {
    TurnLoop loop(AgentDefinition specialist, ExecutorService pool);
  }

  private final LoopSettings settings;
  private final AgentDefinition agent;
  private final ExecutorService pool;
  private final Specialists specialists;
  private final RunQuestions questions;

  CallDispatcher(LoopSettings settings, AgentDefinition agent, ExecutorService pool, Specialists specialists) {
    this.settings = settings;
    this.agent = agent;
    this.pool = pool;
    this.specialists = specialists;
    this.questions = new RunQuestions(settings.runner(), settings.time(), agent.agentId());
  }

  /**
   * What a run waits for after its calls were dispatched.
   *
   * @param what in words, naming the tool and the request
   * @param status {@code WAITING_FOR_APPROVAL} when a call waits for an approval decision, {@code
   *     WAITING_FOR_INPUT} when a tool's question waits for its answer, else {@code
   *     WAITING_FOR_TOOLS} (a runner, another process)
   * @param wakeAt when to look again without a new record (an approval's or a question's expiry, a
   *     response timeout), or null
   * @param children the child runs (of specialists) the calls wait for: their records move this run on
   */
  record Waiting(String what, Run.Status status, @Nullable Instant wakeAt, List<String> children) {
    Waiting(String what, Run.Status status, @Nullable Instant wakeAt) {
      this(what, status, wakeAt, List.of());
    }

    /** Whether a person is waited for (a decision, an answer), which says more about a run than a runner. */
    boolean onAPerson() {
      return status != Run.Status.WAITING_FOR_TOOLS;
    }
  }

  /** One call's outcome: its response, or what it waits for. */
  private record Outcome(@Nullable ToolResponse response, @Nullable Waiting waiting) {}

  /**
   * The call as the round records it: a request to make (its id derived from the run), or the
   * error the model is told instead when the offer cannot carry it out (an unknown tool, arguments
   * that are not a JSON object).
   */
  Round.Call plan(ToolCall call, Offer offer, String requestId) {
    Optional<String> name = offer.prompt().toolFor(call.name());
    if (name.isEmpty()) {
      return new Round.Call(call, null, null, "Error: unknown tool '" + call.name() + "'. Available tools: "
          + String.join(", ", offer.prompt().functionToTool().keySet()) + ". Call one of these, or answer without a tool.", false);
    }
    JsonNode input;
    try {
      input = RcrtJson.parse(call.arguments().isBlank() ? "{}" : call.arguments());
    } catch (ValidationException e) {
      return new Round.Call(call, null, null, "Error: the arguments for '" + call.name() + "' are " + e.getMessage()
          + ". Call it again with a JSON object that matches its parameters.", false);
    }
    if (!input.isObject()) {
      return new Round.Call(call, null, null, "Error: the arguments for '" + call.name() + "' must be a JSON object, found "
          + input.getNodeType().toString().toLowerCase(Locale.ROOT) + ".", false);
    }
    ToolDefinition tool = offer.byName().get(name.get());
    return new Round.Call(call, requestId, name.get(), null, tool != null && "agent".equals(tool.implementation().type()));
  }

  /**
   * Carries out the calls of {@code round} that have no response yet, concurrently, and adds their
   * responses to {@code run}: a call never made is made under its derived request id; a request
   * already written is run again (direct mode: the chain returns an existing response rather than
   * run twice) or, in event mode, waited for. Nothing here throws for a tool's failure.
   *
   * @param model the turn's model, which a tool the run calls here may ask ({@link RunExchange})
   * @return null when every call has its response; else what the run waits for
   */
  @Nullable Waiting run(Round round, Offer offer, String session, String runId, String roundRef, String model, RunRecords run, Leases.Held held) {
    List<Round.Call> open = new ArrayList<>();
    for (Round.Call c : round.calls()) {
      if (c.requestId() != null && !run.responses.containsKey(c.requestId())) {
        open.add(c);
      }
    }
    List<Outcome> outcomes = new ArrayList<>();
    if (open.size() == 1) {
      outcomes.add(run(open.get(0), offer, session, runId, roundRef, model, run.requests.get(open.get(0).requestId()), held));
    } else {
      List<Future<Outcome>> running = new ArrayList<>();
      for (Round.Call c : open) {
        Breadcrumb stored = run.requests.get(c.requestId());
        running.add(pool.submit(settings.observer().carry(() -> run(c, offer, session, runId, roundRef, model, stored, held))));
      }
      for (int i = 0; i < open.size(); i++) {
        outcomes.add(joined(running.get(i), open.get(i)));
      }
    }
    Waiting waiting = null;
    List<String> children = new ArrayList<>();
    for (Outcome o : outcomes) {
      if (o.response() != null) {
        run.answered(o.response());
      } else {
        children.addAll(Objects.requireNonNull(o.waiting(), "waiting").children());
        if (waiting == null || o.waiting().onAPerson() && !waiting.onAPerson()) {
          waiting = o.waiting();
        }
      }
    }
    return waiting == null ? null : new Waiting(waiting.what(), waiting.status(), waiting.wakeAt(), List.copyOf(children));
  }

  private Outcome joined(Future<Outcome> running, Round.Call call) {
    try {
      return running.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof ClaimLostException lost) {
        throw lost; // the run was lost while its calls were being made: abandon the step
      }
      return new Outcome(null, new Waiting("a retry of '" + call.tool() + "' (its dispatch failed: " + e.getCause() + ")", Run.Status.WAITING_FOR_TOOLS, null));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Outcome(null, new Waiting("'" + call.tool() + "' (interrupted)", Run.Status.WAITING_FOR_TOOLS, null));
    }
  }

  /** One open call: made, run again, or waited for. */
  private Outcome run(
      Round.Call c, Offer offer, String session, String runId, String roundRef, String model, @Nullable Breadcrumb stored, Leases.Held held) {
    String requestId = Objects.requireNonNull(c.requestId(), "requestId");
    String toolName = Objects.requireNonNull(c.tool(), "tool");
    ToolDefinition tool = offer.byName().get(toolName);
    ToolRunner runner = settings.runner();
    boolean specialist = tool != null && "agent".equals(tool.implementation().type());
    RunExchange back = new RunExchange(settings.llm(), model, tool, toolName, agent.agentId(), runId, requestId,
        List.of("session:" + session, "run:" + runId), questions);
    if (stored != null) {
      return specialist ? childAgain(stored, Objects.requireNonNull(tool, "tool"), held)
          : settings.eventMode() ? awaited(stored, toolName) : underClaim(requestId, toolName, tool, () -> runAgain(stored, held, back));
    }
    JsonNode input = RcrtJson.parse(c.call().arguments().isBlank() ? "{}" : c.call().arguments());
    ToolRequest request =
        new ToolRequest(requestId, toolName, input, agent.agentId(), new ToolRequest.ModelCall(c.call().id(), c.call().name(), roundRef));
    // the request is written fenced by the run's claim: a holder that lost the run makes no call
    ToolCallOptions options = ToolCallOptions.by(Principal.agent(agent.agentId())).withTags("session:" + session, "run:" + runId).withClaim(held);
    if (tool != null) {
      options = options.withTool(tool);
    }
    try {
      if (specialist) { // a child run: the request is its trigger, and the specialist's steps are the call's code
        ChildCall child = new ChildCall(Objects.requireNonNull(tool, "tool"), requestId);
        return answered(runner.call(request, options.withHandler(child)), toolName, child);
      }
      if (settings.eventMode()) {
        return awaited(runner.submit(request, options), toolName);
      }
      ToolCallOptions calling = options.withExchange(back);
      return underClaim(requestId, toolName, tool, () -> runner.call(request, calling));
    } catch (ConflictException written) { // another process wrote it a moment ago: take it as stored
      Breadcrumb again = runner.store().get(requestId).orElseThrow(() -> written);
      return specialist ? childAgain(again, Objects.requireNonNull(tool, "tool"), held)
          : settings.eventMode() ? awaited(again, toolName) : underClaim(requestId, toolName, tool, () -> runAgain(again, held, back));
    }
  }

  /**
   * A specialist's call written before: its child run is taken up where it stands (once the
   * parent's claim is confirmed held). Unlike a tool's call it takes no call claim: the child run's
   * own lease keeps its steps to one process, and the call's one response is the child's answer, so
   * a process that gave the parent back mid-call (a closed executor) leaves nothing held that only
   * the clock would free. A child held elsewhere makes the call wait for the child's records.
   */
  private Outcome childAgain(Breadcrumb stored, ToolDefinition tool, Leases.Held held) {
    ChildCall child = new ChildCall(tool, stored.id());
    held.verify();
    return answered(settings.runner().run(stored, tool, child), tool.name(), child);
  }

  /**
   * How long a call's claim outlasts the tool's time limit (or the run lease, if longer): the time
   * its process has, after the tool's deadline, to record the response, stalled by load or a pause
   * as it may be. Only a process that died leaves the claim to run out; its run's next holder then
   * waits this much longer before it runs the call again.
   */
  static final Duration CALL_MARGIN = Duration.ofSeconds(30);

  /**
   * Runs a call in this process under the request's own claim ({@code tool.request:<id>}, the key a
   * listening runner claims), taken for the tool's whole time limit plus {@link #CALL_MARGIN} (or
   * the run lease, if longer) and given back when the call returns. A call under way is therefore never started again elsewhere while its
   * process lives, however late that process's run renewals come (a holder stalled past its run
   * lease loses the run, not the call): the run's new holder finds the call's claim held and waits
   * for its response, looking again at the latest a run lease later (the call may be given back
   * without one: no record then wakes the run).
   */
  private Outcome underClaim(String requestId, String toolName, @Nullable ToolDefinition tool, Supplier<ToolResponse> call) {
    Duration margin = settings.runLease().compareTo(CALL_MARGIN) > 0 ? settings.runLease() : CALL_MARGIN;
    Duration limit = (tool != null && tool.timeout() != null ? tool.timeout() : settings.runner().defaultTimeout()).plus(margin);
    String key = ToolRequest.claimKey(requestId);
    Optional<WorkClaims.Claim> mine = settings.claims().tryClaim(key, settings.owner(), limit);
    if (mine.isEmpty()) {
      // a process that gives the call back without a response (it stopped, or the call ended waiting) writes no record that
      // would wake this run: look again within a run lease, not only at the claim's end (the tool's limit plus the margin)
      Instant now = settings.time().instant();
      Instant within = now.plus(settings.runLease());
      Instant held = settings.claims().heldUntil(key).orElse(now);
      Instant until = held.isBefore(within) ? held : within;
      return new Outcome(null, new Waiting("'" + toolName + "', under way in another process (request " + requestId + ")", Run.Status.WAITING_FOR_TOOLS, until));
    }
    try {
      return answered(call.get(), toolName, null);
    } finally {
      settings.claims().release(mine.get());
    }
  }

  /** Runs a request written before (by this run's earlier holder) again, once the claim is confirmed held: no tool runs for a lost run. */
  private ToolResponse runAgain(Breadcrumb stored, Leases.Held held, RunExchange back) {
    held.verify();
    return settings.runner().run(stored, back);
  }

  /** A direct call's response, or, when it waits for approval or for its child run, the wait. */
  private Outcome answered(ToolResponse response, String tool, @Nullable ChildCall child) {
    TurnLoop.Progress stepped = child == null ? null : child.waiting;
    if (ToolErrorCode.TOOL_WAITING.is(response.errorCode()) && stepped != null) {
      return new Outcome(null, new Waiting("agent '" + tool + "' (its run " + stepped.runId() + " waits for " + stepped.waitingFor() + ")",
          stepped.status() == Run.Status.RUNNING ? Run.Status.WAITING_FOR_TOOLS : stepped.status(), stepped.wakeAt(), List.of(stepped.runId())));
    }
    if (ToolErrorCode.TOOL_WAITING.is(response.errorCode()) && child == null) {
      return new Outcome(null, questions.waiting(response.requestId(), tool));
    }
    if (!ToolErrorCode.TOOL_APPROVAL_PENDING.is(response.errorCode())) {
      LOG.debug("call '{}' (request {}): {}", tool, response.requestId(), response.success() ? "answered" : "failed [" + response.errorCode() + "]");
      return new Outcome(response, null);
    }
    return new Outcome(null, approvalWait(response.requestId(), tool, approvalRequest(response.requestId())));
  }

  /** The {@code approval.request.v1} written for request {@code requestId}, if any. */
  private @Nullable Breadcrumb approvalRequest(String requestId) {
    List<Breadcrumb> asked =
        settings.runner().store().search(Selector.schema(ApprovalRequest.SCHEMA).withAllTags("request:" + requestId), 1, 0);
    return asked.isEmpty() ? null : asked.get(0);
  }

  private static Waiting approvalWait(String requestId, String tool, @Nullable Breadcrumb asked) {
    Instant expires = asked == null ? null : ApprovalRequest.fromBreadcrumb(asked).expiresAt();
    return new Waiting("approval of '" + tool + "' (call " + requestId + ")", Run.Status.WAITING_FOR_APPROVAL, expires);
  }

  /**
   * Event mode: the request is written; a listening runner answers it. Past the response timeout
   * (measured from the request's creation) with no response and no approval pending, the call is
   * answered with {@code tool_timeout} so the run can go on.
   */
  private Outcome awaited(Breadcrumb stored, String tool) {
    Breadcrumb asked = approvalRequest(stored.id());
    if (asked != null) {
      return new Outcome(null, approvalWait(stored.id(), tool, asked));
    }
    Instant due = stored.createdAt().plus(settings.responseTimeout());
    if (!settings.time().instant().isBefore(due)) {
      return new Outcome(settings.runner().fail(stored, ToolErrorCode.TOOL_TIMEOUT, "no tool runner answered request " + stored.id()
          + " within " + settings.responseTimeout().toMillis() + " ms; none may be listening on this store"), null);
    }
    return new Outcome(null, new Waiting("a runner to answer '" + tool + "' (request " + stored.id() + ")", Run.Status.WAITING_FOR_TOOLS, due));
  }


  /**
   * The code behind a specialist offered as a tool: takes the steps of the call's child run (the
   * specialist's run answering the stored request, one level deeper) on the specialist threads, at
   * most the specialist timeout, so that the caller can stop waiting. Runs inside the tool chain
   * (trust, approval, validation, recording). The child's answer is the call's output ({@code
   * message}, {@code run_id}); a child that waits (for approval, a runner, another process holding
   * it) ends the call {@code tool_waiting}, unanswered, and the parent waits for it as for any call.
   */
  private final class ChildCall implements ToolHandler {
    private final ToolDefinition tool;
    private final String requestId;
    /** Where the child run stands when it waits; set by the call, read after it by the same thread. */
    volatile TurnLoop.@Nullable Progress waiting;

    ChildCall(ToolDefinition tool, String requestId) {
      this.tool = tool;
      this.requestId = requestId;
    }

    @Override
    public JsonNode execute(JsonNode input, ToolContext context) {
      AgentDefinition specialist;
      Breadcrumb asked;
      try {
        specialist = AgentDefinition.fromBreadcrumb(settings.runner().store().get(tool.sourceId()).orElseThrow());
        asked = settings.runner().store().get(requestId).orElseThrow(); // the chain wrote it before it ran this
      } catch (RuntimeException e) {
        throw new ToolException(ToolErrorCode.TOOL_NOT_FOUND, "agent '" + tool.name() + "' is no longer available");
      }
      ExecutorService calls = Executors.newFixedThreadPool(settings.parallelism(), settings.threads().factory());
      try {
        TurnLoop loop = specialists.loop(specialist, calls);
        TurnLoop.Progress p = stepped(loop, asked);
        Breadcrumb answer = p.answer();
        if (answer == null) {
          waiting = p;
          throw new ToolException(ToolErrorCode.TOOL_WAITING, "agent '" + tool.name() + "' has not answered yet: its run " + p.runId()
              + " waits for " + (p.waitingFor().isEmpty() ? "its steps" : p.waitingFor()));
        }
        AgentResponse said = AgentResponse.fromBreadcrumb(answer);
        if (said.status() == AgentResponse.Status.ERROR || said.status() == AgentResponse.Status.CANCELLED) {
          throw new ToolException(ToolErrorCode.TOOL_FAILED, "agent '" + tool.name() + "' did not answer (run " + p.runId() + "): " + said.message());
        }
        return RcrtJson.object().put("message", said.message()).put("run_id", p.runId());
      } finally {
        calls.shutdownNow();
      }
    }

    /** The child's steps taken now, bounded by the specialist timeout; past it they are stopped and the child run ends as timed out. */
    private TurnLoop.Progress stepped(TurnLoop loop, Breadcrumb asked) {
      CompletableFuture<TurnLoop.Progress> done = new CompletableFuture<>();
      // the deadline is set before the steps start, so it is measured from here whatever the pool does
      CompletableFuture<TurnLoop.Progress> bounded = settings.time().orTimeout(done, settings.specialistTimeout());
      Future<?> turn;
      try {
        turn = settings.threads().specialist(() -> {
          try {
            done.complete(loop.answerOrEnd(asked));
          } catch (Throwable t) {
            done.completeExceptionally(t);
            Throwables.rethrowIfFatal(t);
          }
        });
      } catch (AgentException busy) {
        if (AgentException.CLOSED.equals(busy.code())) {
          throw stopped(loop, asked);
        }
        throw new ToolException(ToolErrorCode.TOOL_FAILED, "agent '" + tool.name() + "' was not asked: " + busy.getMessage());
      }
      try {
        return bounded.get();
      } catch (ExecutionException e) {
        if (e.getCause() instanceof TimeoutException) {
          turn.cancel(true);
          String late = "agent '" + tool.name() + "' did not answer within " + settings.specialistTimeout().toMillis() + " ms";
          loop.end(asked, late, new AgentResponse.Error("agent_timeout", late));
          throw new ToolException(ToolErrorCode.TOOL_TIMEOUT, late);
        }
        throw new ToolException(ToolErrorCode.TOOL_FAILED, "agent '" + tool.name() + "' failed: " + (e.getCause() == null ? e : e.getCause().getMessage()));
      } catch (InterruptedException e) {
        turn.cancel(true);
        Thread.currentThread().interrupt();
        throw stopped(loop, asked);
      }
    }

    /** This executor is stopping: the child run goes on wherever it is taken up, and so does the call, which has no answer yet. */
    private ToolException stopped(TurnLoop loop, Breadcrumb asked) {
      waiting = new TurnLoop.Progress(loop.runIdOf(asked), null, Run.Status.RUNNING,
          "its steps (the process taking them was stopped)", settings.time().instant().plus(settings.runLease()));
      return new ToolException(ToolErrorCode.TOOL_WAITING, "agent '" + tool.name() + "' was stopped while answering; its run goes on");
    }
  }
}
