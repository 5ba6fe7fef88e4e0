package dev.rcrt.agent.internal.loop;

import dev.rcrt.agent.Run;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.Principal;
import dev.rcrt.core.Selector;
import dev.rcrt.core.TimeSource;
import dev.rcrt.core.ValidationException;
import dev.rcrt.tools.InputRequest;
import dev.rcrt.tools.InputResponse;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolExchange;
import dev.rcrt.tools.ToolRunner;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A run's questions for its user, kept as records: a tool that asks for input (elicitation) in an
 * agent's run gets the answer recorded for that question, or its question is recorded as an {@link
 * InputRequest} and the call waits ({@code tool_waiting}), holding no thread, until an {@link
 * InputResponse} from the host or an approver arrives; the call then runs again and each of its
 * questions, by its place in the call, gets its recorded answer. A question that ran out unanswered
 * is answered {@code cancel}. Questions are written as the run's agent, so a tool cannot make a
 * run look as if it waited for input. Stateless; thread-safe.
 */
final class RunQuestions {
  private static final Logger LOG = LoggerFactory.getLogger(RunQuestions.class);

  private final BreadcrumbStore store;
  private final TimeSource time;
  private final Set<Principal> approvers;
  private final java.time.Duration expiry;
  private final Principal agent;

  RunQuestions(ToolRunner runner, TimeSource time, String agentId) {
    this.store = runner.store();
    this.time = time;
    this.approvers = runner.approvers();
    this.expiry = runner.approvalExpiry();
    this.agent = Principal.agent(agentId);
  }

  /**
   * The answer to question {@code ordinal} of call {@code requestId}: the one recorded, {@code
   * cancel} when the question ran out unanswered; otherwise the question is recorded and this throws
   * {@code tool_waiting}.
   *
   * @param tags the call's {@code session:} and {@code run:} tags, which the question carries
   */
  ToolExchange.Elicited ask(
      String requestId, int ordinal, String tool, String runId, List<String> tags, ToolExchange.Elicitation question) {
    InputRequest asked = asked(requestId, ordinal);
    InputResponse answer = asked == null ? null : answer(asked);
    if (answer != null) {
      return answer.answer();
    }
    Instant now = time.instant();
    if (asked == null) {
      InputRequest q = new InputRequest(requestId, ordinal, tool, question.message(), question.requestedSchema(), now, now.plus(expiry), runId);
      asked = InputRequest.fromBreadcrumb(store.create(q.toBreadcrumb(tags, agent.wire())));
    }
    if (asked.expiredAt(now)) {
      LOG.info("run '{}': tool '{}''s question {} on call {} ran out at {} unanswered; the tool is told 'cancel'", runId, tool, ordinal,
          requestId, asked.expiresAt());
      return new ToolExchange.Elicited(ToolExchange.Elicited.Action.CANCEL, null);
    }
    throw new ToolException(ToolErrorCode.TOOL_WAITING, "tool '" + tool + "' asks its user: \"" + asked.message() + "\"; the run waits for"
        + " the answer until " + asked.expiresAt() + " (./rcrt runs answer " + runId + " " + requestId + " '{…}')");
  }

  /** What a call whose tool asked waits for: the answer to its newest question. */
  CallDispatcher.Waiting waiting(String requestId, String tool) {
    InputRequest newest = null;
    for (InputRequest q : questions(requestId)) {
      if (newest == null || q.ordinal() > newest.ordinal()) {
        newest = q;
      }
    }
    if (newest == null) { // a tool_waiting no question explains: look again soon rather than never
      return new CallDispatcher.Waiting("'" + tool + "' (call " + requestId + ", waiting)", Run.Status.WAITING_FOR_TOOLS, time.instant());
    }
    return new CallDispatcher.Waiting("input for '" + tool + "' (call " + requestId + "): " + newest.message(), Run.Status.WAITING_FOR_INPUT,
        newest.expiresAt());
  }

  /** Question {@code ordinal} of call {@code requestId} as the run's agent recorded it, or null. */
  private @Nullable InputRequest asked(String requestId, int ordinal) {
    for (InputRequest q : questions(requestId)) {
      if (q.ordinal() == ordinal) {
        return q;
      }
    }
    return null;
  }

  /** The questions the run's agent recorded for call {@code requestId}, in any order. */
  private List<InputRequest> questions(String requestId) {
    List<InputRequest> out = new ArrayList<>();
    for (Breadcrumb b : store.search(Selector.schema(InputRequest.SCHEMA).withAllTags("request:" + requestId), 100, 0)) {
      if (!agent.equals(Principal.writerOf(b))) {
        LOG.warn("ignored {} '{}' on call {}: written by {}, not by the run's agent", InputRequest.SCHEMA, b.id(), requestId, Principal.writerOf(b));
        continue;
      }
      try {
        out.add(InputRequest.fromBreadcrumb(b));
      } catch (ValidationException malformed) {
        LOG.warn("ignored malformed {} '{}': {}", InputRequest.SCHEMA, b.id(), malformed.getMessage());
      }
    }
    return out;
  }

  /**
   * The first answer to {@code asked} that counts: by the host or an approver, recorded no later
   * than the question's expiry; others are ignored and logged.
   */
  private @Nullable InputResponse answer(InputRequest asked) {
    List<Breadcrumb> oldestFirst =
        new ArrayList<>(store.search(Selector.schema(InputResponse.SCHEMA).withAllTags("request:" + asked.requestId()), 100, 0));
    Collections.reverse(oldestFirst);
    for (Breadcrumb b : oldestFirst) {
      try {
        InputResponse r = InputResponse.fromBreadcrumb(b);
        if (asked.answeredBy(r, b.createdAt(), approvers)) {
          return r;
        }
        if (r.ordinal() == asked.ordinal()) { // an answer to this question that does not count: say why
          LOG.warn("ignored {} '{}' on call {}: {}", InputResponse.SCHEMA, b.id(), asked.requestId(), b.createdAt().isAfter(asked.expiresAt())
              ? "recorded at " + b.createdAt() + ", after the question ran out at " + asked.expiresAt()
              : "written by " + r.answeredBy() + ", who may not answer (only the host and the runner's approvers may)");
        }
      } catch (ValidationException malformed) {
        LOG.warn("ignored malformed {} '{}': {}", InputResponse.SCHEMA, b.id(), malformed.getMessage());
      }
    }
    return null;
  }
}
