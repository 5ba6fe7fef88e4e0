package dev.rcrt.agent.internal.loop;

import dev.rcrt.agent.AgentResponse;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.llm.ChatResponse;
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
