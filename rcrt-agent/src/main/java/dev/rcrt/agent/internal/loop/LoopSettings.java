package dev.rcrt.agent.internal.loop;

import dev.rcrt.agent.AgentObserver;
import dev.rcrt.core.TimeSource;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.llm.StreamListener;
import dev.rcrt.tools.ToolRunner;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import org.jspecify.annotations.Nullable;

/**
 * An executor's settings, frozen when it is built: changing the builder afterwards changes nothing
 * that was built from it.
 *
 * @param toolPool the host's pool for parallel tool calls, or null for one of {@code parallelism}
 *     threads owned by the executor
 * @param eventMode whether calls are written for a listening runner instead of run directly
 * @param budget shared by every turn: caches token counts and relevance documents (thread-safe)
 * @param observer told of each turn (tracing)
 */
public record LoopSettings(
    LlmClient llm,
    ToolRunner runner,
    int maxRounds,
    int historyLimit,
    int parallelism,
    @Nullable ExecutorService toolPool,
    @Nullable StreamListener streamListener,
    boolean eventMode,
    Duration responseTimeout,
    int maxAgentDepth,
    Duration specialistTimeout,
    TimeSource time,
    ToolBudget budget,
    AgentObserver observer) {}
