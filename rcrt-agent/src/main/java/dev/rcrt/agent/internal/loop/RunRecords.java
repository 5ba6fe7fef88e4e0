package dev.rcrt.agent.internal.loop;

import dev.rcrt.agent.AgentResponse;
import dev.rcrt.agent.Run;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.Principal;
import dev.rcrt.core.Selector;
import dev.rcrt.core.ValidationException;
import dev.rcrt.tools.ApprovalDecision;
import dev.rcrt.tools.ApprovalRequest;
import dev.rcrt.tools.InputRequest;
import dev.rcrt.tools.InputResponse;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolTrustPolicy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the store holds of one run, read from the records tagged with its {@code run:} tag: the
 * rounds, the tool requests and their responses, approval requests and decisions, the tools'
 * questions and their answers, and the answer.
 * The loop's state is rebuilt from this, never kept only in memory. Only what the run's own agent
 * wrote counts as a round or the answer, and only responses written by a runner count as answers
 * (a tool can write records with any tag; they are ignored here and logged). Not thread-safe: one
 * loop owns it while it holds the run's claim.
 */
public final class RunRecords {
  private static final Logger LOG = LoggerFactory.getLogger(RunRecords.class);
  /** The most records one run is read with. */
  static final int MAX_RECORDS = 2000;

  final String runId;
  final String agentId;
  private final ToolTrustPolicy policy;
  private final List<Breadcrumb> all = new ArrayList<>();
  final TreeMap<Integer, Round> rounds = new TreeMap<>();
  final Map<String, Breadcrumb> requests = new HashMap<>();
  final Map<String, ToolResponse> responses = new HashMap<>();
  /** When each response read from the store was recorded, by request id. */
  final Map<String, Instant> answeredAt = new HashMap<>();
  final Map<String, ApprovalRequest> approvals = new HashMap<>();
  final List<Breadcrumb> decisions = new ArrayList<>();
  /** The questions the run's tools asked (written by its agent), oldest first. */
  final List<InputRequest> questions = new ArrayList<>();
  /** Answers to them, by anyone, oldest first: {@link #answerTo} judges them. */
  final List<Breadcrumb> inputAnswers = new ArrayList<>();
  @Nullable Breadcrumb answer;
  /** The record that started the run (a user message or an {@code agent.context.v1}), from the first round. */
  @Nullable String startedBy;
  /** When the run started, from the first round; its deadline is measured from here. */
  @Nullable Instant startedAt;

  RunRecords(String runId, String agentId, ToolTrustPolicy policy) {
    this.runId = runId;
    this.agentId = agentId;
    this.policy = policy;
  }

  /** Reads run {@code runId} of agent {@code agentId}. */
  public static RunRecords load(BreadcrumbStore store, ToolTrustPolicy policy, String runId, String agentId) {
    return of(read(store, runId), policy, runId, agentId);
  }

  /** The records tagged with run {@code runId}'s tag, newest first, at most {@value #MAX_RECORDS}. */
  public static List<Breadcrumb> read(BreadcrumbStore store, String runId) {
    return store.search(Selector.allTags(RunIds.tag(runId)), MAX_RECORDS, 0);
  }

  /** Run {@code runId} of agent {@code agentId} from its records as {@link #read} returns them. */
  public static RunRecords of(List<Breadcrumb> newestFirst, ToolTrustPolicy policy, String runId, String agentId) {
    RunRecords run = new RunRecords(runId, agentId, policy);
    List<Breadcrumb> oldestFirst = new ArrayList<>(newestFirst);
    Collections.reverse(oldestFirst);
    oldestFirst.forEach(run::add);
    return run;
  }

  /**
   * Whether {@code record}, an {@code agent.response.v1} of a run, is that run's answer as its
   * records count it: not a round, and written by agent {@code agentId}. A record another writer
   * (a tool) tagged so answers nothing.
   */
  static boolean isAnswerBy(Breadcrumb record, String agentId) {
    return !Run.isRound(record) && Principal.writerOf(record).equals(Principal.agent(agentId));
  }

  /** Takes one record of the run into account (loaded, or just written by the loop). */
  void add(Breadcrumb b) {
    all.add(b);
    String schema = String.valueOf(b.schemaName());
    boolean ours = Principal.writerOf(b).equals(Principal.agent(agentId));
    try {
      if (schema.equals(AgentResponse.SCHEMA) && !ours) {
        LOG.warn("run '{}': ignored {} '{}' written by {}: only agent '{}' writes its rounds and answer", runId, schema, b.id(),
            Principal.writerOf(b), agentId);
      } else if (Run.isRound(b)) {
        Round round = Round.fromBreadcrumb(b);
        rounds.putIfAbsent(round.index(), round);
        noteStart(b);
      } else if (schema.equals(AgentResponse.SCHEMA)) {
        answer = answer == null ? b : answer;
      } else if (schema.equals(ToolRequest.SCHEMA)) {
        requests.putIfAbsent(b.id(), b);
      } else if (schema.equals(ToolResponse.SCHEMA) && ToolResponse.writtenByARunner(b, policy)) {
        ToolResponse r = ToolResponse.fromBreadcrumb(b);
        responses.putIfAbsent(r.requestId(), r);
        answeredAt.putIfAbsent(r.requestId(), b.createdAt());
      } else if (schema.equals(ApprovalRequest.SCHEMA)) {
        ApprovalRequest a = ApprovalRequest.fromBreadcrumb(b);
        approvals.putIfAbsent(a.requestId(), a);
      } else if (schema.equals(ApprovalDecision.SCHEMA)) {
        decisions.add(b);
      } else if (schema.equals(InputRequest.SCHEMA) && ours) {
        questions.add(InputRequest.fromBreadcrumb(b));
      } else if (schema.equals(InputResponse.SCHEMA)) {
        inputAnswers.add(b);
      }
    } catch (ValidationException | java.time.format.DateTimeParseException malformed) {
      LOG.warn("run '{}': ignored malformed record '{}': {}", runId, b.id(), malformed.getMessage());
    }
  }

  /**
   * Takes a round this loop just recorded: the stored record joins the run's records, and {@code
   * round} as the loop has it (unscrubbed, so this process's calls get their input as the model
   * wrote it) is the round.
   */
  void addLive(Breadcrumb stored, Round round) {
    all.add(stored);
    rounds.putIfAbsent(round.index(), round);
    noteStart(stored);
  }

  /** Takes the run's start (the record that started it, and when) from its first round record read. */
  private void noteStart(Breadcrumb round) {
    if (startedBy == null) {
      startedBy = round.contextText("started_by");
      String at = round.contextText("run_started_at");
      startedAt = at == null ? round.createdAt() : Instant.parse(at);
    }
  }

  /** Records a response the loop got back directly (it is in the store already). */
  void answered(ToolResponse response) {
    responses.putIfAbsent(response.requestId(), response);
  }

  /** When the first decision on {@code requestId} was recorded, or null. */
  @Nullable Instant decidedAt(String requestId) {
    for (Breadcrumb d : decisions) {
      if (requestId.equals(d.contextText("request_id"))) {
        return d.createdAt();
      }
    }
    return null;
  }

  /**
   * The run as {@link Run} shows it, judged at {@code now}: decisions count only from the host and
   * {@code approvers}.
   */
  public Run view(java.util.Set<Principal> approvers) {
    List<Run.PendingCall> pending = new ArrayList<>();
    boolean awaitingDecision = false;
    boolean awaitingInput = false;
    for (String id : open()) {
      Breadcrumb request = requests.get(id);
      ApprovalRequest approval = approvals.get(id);
      boolean decided = accepted(id, approvers) != null;
      awaitingDecision |= approval != null && !decided;
      InputRequest question = openQuestion(id, approvers);
      awaitingInput |= question != null;
      String tool = request != null ? String.valueOf(request.contextText("tool")) : callTool(id);
      pending.add(new Run.PendingCall(id, tool, request != null ? request.context().path("input") : dev.rcrt.core.RcrtJson.object(),
          decided ? null : approval, question));
    }
    Run.Status status;
    AgentResponse answered = answer == null ? null : AgentResponse.fromBreadcrumb(answer);
    if (answered != null) {
      status = switch (answered.status()) {
        case ERROR -> Run.Status.FAILED;
        case CANCELLED -> Run.Status.CANCELLED;
        default -> Run.Status.DONE;
      };
    } else if (awaitingDecision) {
      status = Run.Status.WAITING_FOR_APPROVAL;
    } else if (awaitingInput) {
      status = Run.Status.WAITING_FOR_INPUT;
    } else if (!pending.isEmpty() && pending.stream().allMatch(p -> requests.containsKey(p.requestId()))) {
      status = Run.Status.WAITING_FOR_TOOLS;
    } else {
      status = Run.Status.RUNNING;
    }
    List<String> ignored = new ArrayList<>();
    for (Breadcrumb d : decisions) {
      try {
        ApprovalDecision decision = ApprovalDecision.fromBreadcrumb(d);
        Instant expired = lateFor(d, decision.requestId());
        if (!decision.countsFor(approvers)) {
          ignored.add(d.id() + " by " + Principal.writerOf(d));
        } else if (expired != null) {
          ignored.add(d.id() + " by " + Principal.writerOf(d) + " (recorded " + d.createdAt() + ", after the request expired at " + expired + ")");
        }
      } catch (ValidationException malformed) {
        ignored.add(d.id() + " (malformed: " + malformed.getMessage() + ")");
      }
    }
    Breadcrumb first = all.isEmpty() ? null : all.get(0);
    String session = first == null ? "" : first.tagValue("session:").orElse("");
    String trigger = all.stream().map(b -> b.contextText("trigger_id")).filter(java.util.Objects::nonNull).findFirst().orElse("");
    java.time.Instant updated = all.stream().map(Breadcrumb::updatedAt).max(java.util.Comparator.naturalOrder()).orElse(java.time.Instant.EPOCH);
    return new Run(runId, agentId, session, trigger, status, rounds.size(), pending, answered, ignored, all, updated);
  }

  private String callTool(String requestId) {
    Round last = lastRound();
    if (last != null) {
      for (Round.Call c : last.calls()) {
        if (requestId.equals(c.requestId())) {
          return String.valueOf(c.tool());
        }
      }
    }
    return "";
  }

  /** The expiry of {@code requestId}'s approval request when decision {@code d} was recorded after it, else null. */
  private @Nullable Instant lateFor(Breadcrumb d, String requestId) {
    ApprovalRequest asked = approvals.get(requestId);
    return asked != null && d.createdAt().isAfter(asked.expiresAt()) ? asked.expiresAt() : null;
  }

  /** The first decision on {@code requestId} that counts (by an approver, recorded before the request expired), or null. */
  @Nullable ApprovalDecision accepted(String requestId, java.util.Set<Principal> approvers) {
    for (Breadcrumb d : decisions) {
      try {
        ApprovalDecision decision = ApprovalDecision.fromBreadcrumb(d);
        if (decision.requestId().equals(requestId) && decision.countsFor(approvers) && lateFor(d, requestId) == null) {
          return decision;
        }
      } catch (ValidationException malformed) {
        // listed as ignored by view()
      }
    }
    return null;
  }

  /** Call {@code requestId}'s newest question when it has no answer that counts yet, else null. */
  private @Nullable InputRequest openQuestion(String requestId, java.util.Set<Principal> approvers) {
    InputRequest newest = null;
    for (InputRequest q : questions) {
      if (q.requestId().equals(requestId) && (newest == null || q.ordinal() > newest.ordinal())) {
        newest = q;
      }
    }
    return newest == null || answerTo(newest, approvers) != null ? null : newest;
  }

  /**
   * The record of the first answer to {@code question} that counts (by the host or an approver,
   * recorded no later than the question's expiry), or null.
   */
  private @Nullable Breadcrumb answerTo(InputRequest question, java.util.Set<Principal> approvers) {
    for (Breadcrumb b : inputAnswers) {
      try {
        if (question.answeredBy(InputResponse.fromBreadcrumb(b), b.createdAt(), approvers)) {
          return b;
        }
      } catch (ValidationException malformed) {
        // RunQuestions logs it when the tool asks again
      }
    }
    return null;
  }

  /** When the first answer that counts to {@code question} was recorded, or null. */
  @Nullable Instant answeredAt(InputRequest question, java.util.Set<Principal> approvers) {
    Breadcrumb answer = answerTo(question, approvers);
    return answer == null ? null : answer.createdAt();
  }

  /** Every record read or written, oldest first. */
  public List<Breadcrumb> all() {
    return List.copyOf(all);
  }

  /** The last round, or null before the first. */
  @Nullable Round lastRound() {
    return rounds.isEmpty() ? null : rounds.lastEntry().getValue();
  }

  /** The request ids of the last round that have no response yet. */
  List<String> open() {
    Round last = lastRound();
    if (last == null) {
      return List.of();
    }
    List<String> open = new ArrayList<>();
    for (Round.Call c : last.calls()) {
      if (c.requestId() != null && !responses.containsKey(c.requestId())) {
        open.add(c.requestId());
      }
    }
    return open;
  }
}
