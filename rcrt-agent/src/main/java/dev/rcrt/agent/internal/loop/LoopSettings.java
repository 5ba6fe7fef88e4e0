package dev.rcrt.agent.internal.loop;

import dev.rcrt.agent.AgentObserver;
import dev.rcrt.core.TimeSource;
import dev.rcrt.core.WorkClaims;
import dev.rcrt.core.spi.Leases;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.tools.ToolRunner;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * An executor's settings, frozen when it is built: changing the builder afterwards changes nothing
 * that was built from it.
 *
 * @param parallelism how many calls of one answer run at once (a specialist's own pool too)
 * @param threads the executor's threads (tool calls, specialists, asynchronous turns), closed with it
 * @param text where the rounds' text goes as the model streams it
 * @param eventMode whether calls are written for a listening runner instead of run directly
 * @param budget shared by every turn: caches token counts and relevance documents (thread-safe)
 * @param observer told of each turn (tracing)
 * @param claims where runs are claimed: the store's, else shared by this JVM
 * @param leases the executor's claims on runs and the one thread that renews them, closed with the executor
 * @param owner who this executor claims runs as
 * @param runLease how long a run's claim lasts unrenewed
 * @param turnTimeout how long a run may take, not counting time waiting for approval
 */
public record LoopSettings(
    LlmClient llm,
    ToolRunner runner,
    int maxRounds,
    int historyLimit,
    int parallelism,
    AgentThreads threads,
    RunText text,
    boolean eventMode,
    Duration responseTimeout,
    int maxAgentDepth,
    Duration specialistTimeout,
    TimeSource time,
    ToolBudget budget,
    AgentObserver observer,
    WorkClaims claims,
    Leases leases,
    String owner,
    Duration runLease,
    Duration turnTimeout) {

  /** The same settings with {@code timeout} as the turn timeout (a specialist's child runs). */
  public LoopSettings withTurnTimeout(Duration timeout) {
    return new LoopSettings(llm, runner, maxRounds, historyLimit, parallelism, threads, text, eventMode, responseTimeout,
        maxAgentDepth, specialistTimeout, time, budget, observer, claims, leases, owner, runLease, timeout);
  }
}
