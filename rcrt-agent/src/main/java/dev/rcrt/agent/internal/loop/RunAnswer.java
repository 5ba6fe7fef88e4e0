package dev.rcrt.agent.internal.loop;

import dev.rcrt.agent.AgentResponse;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.WorkClaims;
import dev.rcrt.llm.ChatResponse;
import java.time.Instant;
import java.util.List;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * A run's one answer: the {@code agent.response.v1} that ends it (the model's answer, the round
 * limit, a failure, a deadline, a cancellation), with the run's tag, its counts summed from the
 * recorded rounds, and the idempotency key that makes it the only one: a second answer written for
 * the same run returns the first.
 */
public final class RunAnswer {
  private RunAnswer() {}

  /**
   * Writes the answer of {@code run} (or returns the one it has).
   *
   * @param store writes the record: the store's {@code create}, or a holder's fenced create
   * @param last the model's answer that ends the run, which is no recorded round (its model and
   *     usage count), or null when the run ends otherwise
   * @param shape a last change to the record (an envelope agent's own title and tags), or identity
   * @return the stored answer
   */
  public static Breadcrumb write(
      Function<BreadcrumbCreate, Breadcrumb> store, RunRecords run, @Nullable ChatResponse last, String session, String questionId, String message, AgentResponse.Status status,
      AgentResponse.@Nullable Error error, UnaryOperator<BreadcrumbCreate> shape) {
    Counters turn = Counters.of(run, last);
    AgentResponse response =
        new AgentResponse("", session, run.agentId, questionId, message, turn.model, status, turn.rounds, turn.toolCalls, turn.usage(), error);
    BreadcrumbCreate written = response.toBreadcrumb().withTags(List.of(RunIds.tag(run.runId))).withIdempotencyKey(RunIds.answerKey(run.runId));
    return store.apply(shape.apply(written));
  }

  /**
   * Ends {@code run}, which {@code trigger} started (a user message, an {@code agent.context.v1}, a
   * parent's {@code tool.request.v1}), without the model: writes its one answer ({@code status},
   * {@code message}, {@code error}), tagged as the run's other records are (a child run's {@code
   * parent_run:}, so its parent is woken wherever it is held); nothing is written when the run has
   * an answer. Then, when {@code claims} is given, completes the run's claim as {@code owner} at
   * {@code now}: a holder's next fenced write is refused, so a step under way records nothing more.
   *
   * @param claims the store's claims, or null to leave the claim to its holder (who ends the run itself)
   * @return the run's answer: this one, or the one it had
   */
  public static Breadcrumb end(
      BreadcrumbStore store, RunRecords run, Breadcrumb trigger, String message, AgentResponse.Status status, AgentResponse.@Nullable Error error,
      @Nullable WorkClaims claims, String owner, Instant now) {
    Breadcrumb answer = run.answer != null ? run.answer
        : write(store::create, run, null, Trigger.sessionOf(trigger), Trigger.questionId(trigger), message, status, error,
            b -> b.withTags(Trigger.runTags(trigger)));
    if (claims != null) {
      claims.complete(new WorkClaims.Claim(RunIds.claimKey(run.runId), owner, 0, now));
    }
    return answer;
  }

  /** Counters of one run, from its records. */
  private static final class Counters {
    /** The model that gave the last answer: as the provider named it, else as it was asked for. */
    @Nullable String model;
    int rounds;
    int toolCalls;
    long promptTokens;
    long completionTokens;
    long totalTokens;

    static Counters of(RunRecords run, @Nullable ChatResponse last) {
      Counters c = new Counters();
      for (Round r : run.rounds.values()) {
        c.rounds++;
        c.toolCalls += r.calls().size();
        c.add(r.model(), r.usage());
      }
      if (last != null) {
        c.rounds++;
        c.add(last.model(), last.usage());
      }
      return c;
    }

    void add(@Nullable String answeredBy, ChatResponse.@Nullable Usage usage) {
      model = answeredBy;
      if (usage != null) {
        promptTokens += usage.promptTokens();
        completionTokens += usage.completionTokens();
        totalTokens += usage.totalTokens();
      }
    }

    ChatResponse.@Nullable Usage usage() {
      return totalTokens > 0 ? new ChatResponse.Usage(promptTokens, completionTokens, totalTokens) : null;
    }
  }
}
