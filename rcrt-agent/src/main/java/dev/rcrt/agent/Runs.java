package dev.rcrt.agent;

import dev.rcrt.agent.internal.loop.RunAnswer;
import dev.rcrt.agent.internal.loop.RunRecords;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.JsonSchema;
import dev.rcrt.core.NotFoundException;
import dev.rcrt.core.Principal;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.ValidationException;
import dev.rcrt.core.WorkClaims;
import dev.rcrt.core.spi.Leases;
import dev.rcrt.tools.ApprovalDecision;
import dev.rcrt.tools.ApprovalRequest;
import dev.rcrt.tools.InputRequest;
import dev.rcrt.tools.InputResponse;
import dev.rcrt.tools.ToolExchange;
import dev.rcrt.tools.ToolTrustPolicy;
import dev.rcrt.core.TimeSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The agent runs kept in a store, for a host or an operator: list them, show one with its records,
 * decide a call that waits for approval, answer a tool's question, cancel one. Everything here
 * reads and writes records, so it works from any process sharing the store (a web application,
 * {@code ./rcrt runs}), with no agent running; the agents' processes take a decided run up when
 * the decision arrives. Continuing a run in this process is {@link AgentExecutor#resume}.
 *
 * <p>Decisions and answers written here are stamped with the principal given (the host, or a
 * user); a runner accepts only the host's and its {@code approvers}'. Thread-safe.
 */
public final class Runs {
  /** How many of the newest round, answer and approval records {@link #list} reads to find runs. */
  private static final int SCAN = 500;

  private final BreadcrumbStore store;
  private final ToolTrustPolicy policy;
  private final Set<Principal> approvers;
  private final TimeSource time;
  private final WorkClaims claims;

  /**
   * Runs in {@code store}, judged with {@code policy} (which responses count as answers) and
   * {@code approvers} (whose decisions count besides the host's), as the runners see them; expiries
   * are judged and decisions dated on {@code time} (the runners' {@code TimeSource}).
   */
  public Runs(BreadcrumbStore store, ToolTrustPolicy policy, TimeSource time, Principal... approvers) {
    this.store = Objects.requireNonNull(store, "store");
    this.policy = Objects.requireNonNull(policy, "policy");
    this.time = Objects.requireNonNull(time, "time");
    this.claims = Leases.claimsOf(store, time);
    this.approvers = Set.copyOf(Arrays.asList(approvers));
  }

  /** Runs in {@code store} under the default trust policy, on the system's time, decided by the host only. */
  public Runs(BreadcrumbStore store) {
    this(store, ToolTrustPolicy.defaults(), TimeSource.system());
  }

  /**
   * The newest runs, newest first, at most {@code limit}, in the given statuses (all when none is
   * given). A run is found by its records: one that has recorded no round, answer, approval or question yet
   * shows once it does.
   *
   * @throws IllegalArgumentException if {@code limit < 1}
   */
  public List<Run> list(int limit, Run.Status... statuses) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit < 1: " + limit);
    }
    Set<Run.Status> wanted = statuses.length == 0 ? EnumSet.allOf(Run.Status.class) : EnumSet.copyOf(Arrays.asList(statuses));
    List<Breadcrumb> marks = new ArrayList<>(store.search(Selector.allTags(Run.ROUND_TAG), SCAN, 0));
    marks.addAll(store.search(Selector.schema(AgentResponse.SCHEMA).withAllTags("agent:response"), SCAN, 0));
    marks.addAll(store.search(Selector.schema(ApprovalRequest.SCHEMA), SCAN, 0));
    marks.addAll(store.search(Selector.schema(InputRequest.SCHEMA), SCAN, 0));
    marks.sort((a, b) -> b.updatedAt().compareTo(a.updatedAt()));
    Set<String> ids = new LinkedHashSet<>();
    marks.forEach(b -> b.tagValue("run:").ifPresent(ids::add));
    List<Run> runs = new ArrayList<>();
    for (String id : ids) {
      Optional<Run> run = show(id);
      if (run.isPresent() && wanted.contains(run.get().status())) {
        runs.add(run.get());
        if (runs.size() == limit) {
          break;
        }
      }
    }
    return runs;
  }

  /** Run {@code runId} with its records, or empty when the store has none of it. */
  public Optional<Run> show(String runId) {
    return records(runId).map(r -> r.view(approvers));
  }

  /** Run {@code runId}'s records, read once; empty when no agent wrote any of them. */
  private Optional<RunRecords> records(String runId) {
    Objects.requireNonNull(runId, "runId");
    List<Breadcrumb> newestFirst = RunRecords.read(store, runId);
    String agentId = null;
    for (Breadcrumb b : newestFirst) {
      Principal writer = Principal.writerOf(b);
      if (writer.kind() == Principal.Kind.AGENT) {
        agentId = writer.id();
      }
    }
    return agentId == null ? Optional.empty() : Optional.of(RunRecords.of(newestFirst, policy, runId, agentId));
  }

  /**
   * Approves call {@code callId} (its request id) of run {@code runId}, as {@code by}: writes the
   * {@code approval.decision.v1} that lets it run in whichever process takes the run up.
   *
   * @throws NotFoundException if the store has no such run
   * @throws ValidationException if that call does not wait for approval (it has a response, or needs none), its
   *     approval request expired, or the run has ended (answered, failed, cancelled)
   */
  public ApprovalDecision approve(String runId, String callId, Principal by, @Nullable String reason) {
    return decide(runId, callId, true, by, reason);
  }

  /** Denies call {@code callId} of run {@code runId}, as {@code by}; it is answered {@code tool_denied}. See {@link #approve}. */
  public ApprovalDecision deny(String runId, String callId, Principal by, @Nullable String reason) {
    return decide(runId, callId, false, by, reason);
  }

  private ApprovalDecision decide(String runId, String callId, boolean approve, Principal by, @Nullable String reason) {
    Run run = require(runId);
    if (run.answer() != null) {
      throw new ValidationException("run '" + runId + "' has ended (" + run.status().toString().toLowerCase(java.util.Locale.ROOT)
          + "): no call of it waits for a decision any more");
    }
    Run.PendingCall call = pendingCall(run, callId);
    if (call.approval() == null) {
      throw new ValidationException("call '" + callId + "' (" + call.tool() + ") of run '" + runId + "' does not wait for approval"
          + (run.status() == Run.Status.WAITING_FOR_TOOLS ? ": it waits for a runner to answer it" : ""));
    }
    if (!time.instant().isBefore(call.approval().expiresAt())) {
      throw new ValidationException("call '" + callId + "' (" + call.tool() + ") of run '" + runId + "' can no longer be decided: its approval"
          + " request expired at " + call.approval().expiresAt() + "; the call ends denied as expired when the run is next taken up,"
          + " and the agent can ask for it again");
    }
    ApprovalDecision decision = new ApprovalDecision(callId, approve, Objects.requireNonNull(by, "by"), time.instant(), reason, runId);
    store.create(decision.toBreadcrumb());
    return decision;
  }

  /**
   * Answers the question call {@code callId} (its request id) of run {@code runId} waits for, as
   * {@code by}: writes the {@code input.response.v1} with which the call runs again, in whichever
   * process takes the run up; its tool's question gets {@code answer}. Accepted values are checked
   * against the question's schema here, so a person who mistyped hears it at once.
   *
   * @param answer {@code accept} with the values (a JSON object that fits the question's {@code
   *     requested_schema}), or {@code decline} or {@code cancel} without
   * @return the answer as recorded
   * @throws NotFoundException if the store has no such run
   * @throws ValidationException if that call has no question waiting (it has a response, or its
   *     tool asked nothing), the question ran out (it is answered {@code cancel} when the run is next
   *     taken up), the run has ended, or accepted values do not fit the schema (naming where)
   */
  public InputResponse answer(String runId, String callId, ToolExchange.Elicited answer, Principal by) {
    Objects.requireNonNull(answer, "answer");
    Run run = require(runId);
    if (run.answer() != null) {
      throw new ValidationException("run '" + runId + "' has ended (" + run.status().wire() + "): no question of it waits for an answer any more");
    }
    Run.PendingCall call = pendingCall(run, callId);
    InputRequest question = call.question();
    if (question == null) {
      throw new ValidationException("call '" + callId + "' (" + call.tool() + ") of run '" + runId + "' asks no question"
          + (call.approval() != null ? ": it waits for approval (./rcrt runs approve " + runId + " " + callId + ")" : ""));
    }
    if (question.expiredAt(time.instant())) {
      throw new ValidationException("the question of call '" + callId + "' (" + call.tool() + ") of run '" + runId + "' can no longer be"
          + " answered: it ran out at " + question.expiresAt() + "; the tool is told 'cancel' when the run is next taken up");
    }
    if (answer.action() == ToolExchange.Elicited.Action.ACCEPT) {
      if (answer.content() == null || !answer.content().isObject()) {
        throw new ValidationException("an accepted answer gives its values as a JSON object; '" + call.tool() + "' asks for "
            + RcrtJson.write(question.requestedSchema().path("properties")));
      }
      List<String> wrong = JsonSchema.compile(question.requestedSchema()).violations(answer.content());
      if (!wrong.isEmpty()) {
        throw new ValidationException("the answer does not fit what '" + call.tool() + "' asked for: " + String.join("; ", wrong));
      }
    }
    InputResponse response = new InputResponse(callId, question.ordinal(), answer, Objects.requireNonNull(by, "by"), time.instant(), runId);
    store.create(response.toBreadcrumb());
    return response;
  }

  private static Run.PendingCall pendingCall(Run run, String callId) {
    return run.pending().stream().filter(p -> p.requestId().equals(callId)).findFirst().orElseThrow(() ->
        new ValidationException("call '" + callId + "' of run '" + run.id() + "' does not wait for anything: it has a response or is no call of"
            + " this run; ./rcrt runs show " + run.id() + " lists its calls"));
  }

  /**
   * Ends run {@code runId} without an answer from the model: writes its one answer, {@code status:
   * "cancelled"}, and completes the run's claim, so no process takes another step: a step under
   * way records nothing more (its next write is refused, its model's late answer dropped). Works
   * from the moment the run id is known ({@code ./rcrt chat --no-wait} prints it), also before the
   * run has recorded anything: such a run is found by its message among the newest {@value #SCAN}
   * messages, for each agent the store defines. Calls already written may still be run by
   * listening runners.
   *
   * <p>The cancellation follows the run's calls to specialists: each call with no response yet
   * has its child run cancelled the same way (and that child's own, recursively), also a child
   * that has recorded nothing yet, so nothing the parent started takes another step. Cancelling a
   * child run alone answers the parent's call as failed, and the parent goes on.
   *
   * @return the run's answer: the cancellation, or the answer it already had
   * @throws NotFoundException if the store has no such run, or its trigger (the message or
   *     request it answers) is no longer stored
   */
  public AgentResponse cancel(String runId, @Nullable String reason) {
    Optional<RunRecords> found = records(runId);
    if (found.isEmpty()) {
      return startOf(runId).map(start -> cancel(start.agentId(), start.message(), reason)).orElseThrow(() -> notFound(runId));
    }
    RunRecords records = found.get();
    Run run = records.view(approvers);
    if (run.answer() != null) {
      return run.answer();
    }
    Breadcrumb trigger = store.get(run.triggerId()).orElseThrow(() -> new NotFoundException(
        "run '" + runId + "' answers '" + run.triggerId() + "', which is no longer in the store: no process can take the run up again"));
    return cancel(records, trigger, reason);
  }

  /**
   * Cancels the run in which agent {@code agentId} answers {@code message}, as {@link #cancel(String,
   * String)} does, also before the run has recorded anything (while its first model call is under
   * way): its one answer, {@code status: "cancelled"}, is written either way, so the step under way
   * records nothing when it ends.
   *
   * @param message the run's {@code user.message.v1}
   * @return the run's answer: the cancellation, or the answer it already had
   */
  public AgentResponse cancel(String agentId, Breadcrumb message, @Nullable String reason) {
    return cancel(RunRecords.load(store, policy, Run.idOf(agentId, message.id()), agentId), message, reason);
  }

  /** An agent and the message of its run. */
  private record Start(String agentId, Breadcrumb message) {}

  /** The agent and message of a run that has recorded nothing yet, found by deriving run ids from the newest messages. */
  private Optional<Start> startOf(String runId) {
    List<String> agents = AgentDefinition.ids(store);
    for (Breadcrumb message : store.search(Selector.schema(UserMessage.SCHEMA), SCAN, 0)) {
      for (String agentId : agents) {
        if (Run.idOf(agentId, message.id()).equals(runId)) {
          return Optional.of(new Start(agentId, message));
        }
      }
    }
    return Optional.empty();
  }

  /** Cancels the run {@code trigger} started, then the child runs of its unanswered calls to specialists. */
  private AgentResponse cancel(RunRecords records, Breadcrumb trigger, @Nullable String reason) {
    Run run = records.view(approvers); // its calls as they stood before the answer ended it
    String why = "The run was cancelled" + (reason == null || reason.isBlank() ? "." : ": " + reason);
    AgentResponse answer = AgentResponse.fromBreadcrumb(RunAnswer.end(store, records, trigger, why, AgentResponse.Status.CANCELLED,
        new AgentResponse.Error("run_cancelled", why), claims, "runs:cancel", time.instant()));
    List<String> agents = AgentDefinition.ids(store);
    for (Run.PendingCall call : run.answer() != null ? List.<Run.PendingCall>of() : run.pending()) {
      if (agents.contains(call.tool())) { // a specialist's call: the request is its child run's trigger
        Optional<Breadcrumb> request = store.get(call.requestId());
        if (request.isPresent()) {
          cancel(RunRecords.load(store, policy, Run.idOf(call.tool(), call.requestId()), call.tool()), request.get(),
              "its parent run " + run.id() + " was cancelled");
        }
      }
    }
    return answer;
  }

  private Run require(String runId) {
    return show(runId).orElseThrow(() -> notFound(runId));
  }

  private static NotFoundException notFound(String runId) {
    return new NotFoundException("no run '" + runId + "' in this store (./rcrt runs list shows the runs)");
  }
}
