package dev.rcrt.agent;

import dev.rcrt.agent.internal.loop.AgentThreads;
import dev.rcrt.agent.internal.loop.LoopSettings;
import dev.rcrt.agent.internal.loop.RunText;
import dev.rcrt.agent.internal.loop.RunDriver;
import dev.rcrt.agent.internal.loop.Serving;
import dev.rcrt.agent.internal.loop.ToolBudget;
import dev.rcrt.agent.internal.loop.TurnLoop;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.ContextView;
import dev.rcrt.core.Subscription;
import dev.rcrt.core.TimeSource;
import dev.rcrt.core.ValidationException;
import dev.rcrt.core.spi.DaemonThreads;
import dev.rcrt.core.spi.Ids;
import dev.rcrt.core.spi.Leases;
import dev.rcrt.core.spi.Throwables;
import dev.rcrt.llm.ChatRequest;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.llm.LlmException;
import dev.rcrt.llm.StreamListener;
import dev.rcrt.tools.ToolRunner;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import org.jspecify.annotations.Nullable;

/**
 * Runs an agent's turns. For each user message ({@link #ask}, or a stored RCRT {@code
 * user.message.v1} given to {@link #answer} or picked up by {@link #start()}) it
 *
 * <ol>
 *   <li>discovers the tools in the store (a tool written a moment ago is offered on the next turn),
 *       keeps the agent's {@code tool_categories}, fits them into {@code tool_budget_tokens} by
 *       relevance to the message, and, for a primary agent, adds every enabled specialist agent as
 *       a tool;
 *   <li>builds the messages: the system prompt; the agent's {@code context_sources} as titled
 *       sections, or else the tool instructions; the session's memory, replayed exactly as the
 *       provider saw it; the user message;
 *   <li>asks the {@link LlmClient}, offering the tools as OpenAI {@code tools} (or, for an agent
 *       with {@code tool_protocol: "text"}, describing the JSON to write), streaming the text to the
 *       {@link Builder#streamListener listener} when there is one, and to the run's followers
 *       ({@link #streamText}, scrubbed);
 *   <li>runs the calls of one answer concurrently on a bounded pool, each through the {@link
 *       ToolRunner}'s chain (trust, approval, validation, the {@code tool.request.v1} / {@code
 *       tool.response.v1} trail) as {@code agent:<agent_id>}, pinned to the tool version the model
 *       was offered, and returns the results in call order as {@code role: tool} messages;
 *   <li>repeats until the model answers without tool calls or the round limit is reached;
 *   <li>writes an {@link AgentResponse} ({@code agent.response.v1}) with the model that answered.
 * </ol>
 *
 * <p>An unknown tool, arguments that are not JSON or break the schema, a tool failure or timeout,
 * a denied approval and a specialist that fails all go back to the model as tool messages saying
 * what is wrong, so it can correct itself; one failing call never cancels the others, and none of
 * them ends the turn. Reaching the round limit ends it with a response that says so. A failure to
 * talk to the model is an {@link LlmException} from {@link #ask} and {@link #answer}; in
 * subscribed mode ({@link #start()}) it is recorded as an {@code agent.response.v1} with {@code
 * status: "error"}.
 *
 * <p>Context sources are shown through {@link ContextView}s chosen to be lenient: a broken hint
 * is logged and that record's raw context shown, so that one bad record cannot stop every turn
 * (secret records are still never shown).
 *
 * <p>Tool calls run in-process by default ({@link ToolMode#DIRECT}). In {@link ToolMode#EVENT}
 * mode the executor only writes each {@code tool.request.v1} and waits for the matching {@code
 * tool.response.v1} from a {@link ToolRunner#listen() listening runner}, possibly in another
 * process sharing the store. Both leave the same breadcrumb trail. In event mode the listening
 * runner's chain decides trust and approval, not the executor's runner.
 *
 * <p>Only tools and agent definitions whose writers the runner's {@link
 * dev.rcrt.tools.ToolTrustPolicy} trusts are offered; what the executor writes is stamped {@code
 * agent:<agent_id>}.
 *
 * <p>Thread-safe and immutable once built: turns for different messages may run at once. Close it
 * when done: {@link #close()} stops the pool the executor created for parallel tool calls (a pool
 * the host passed in is left alone); the runner, client and store stay the host's to close.
 */
public final class AgentExecutor implements AutoCloseable {

  /** How tool calls are carried out. */
  public enum ToolMode {
    /** The executor runs each call through its {@link ToolRunner}. */
    DIRECT,
    /** The executor writes each request and waits for a listening runner's response. */
    EVENT
  }

  private final AgentDefinition agent;
  private final BreadcrumbStore store;
  private final AgentThreads threads;
  private final TurnLoop loop;
  private final RunDriver driver;
  private final LoopSettings settings;
  private final Serving serving;

  private AgentExecutor(LoopSettings settings, AgentDefinition agent) {
    this.agent = agent;
    this.store = settings.runner().store();
    // a model can copy its own key into tool arguments: the runner records no such value
    settings.llm().secretValues().forEach(settings.runner()::addSecretValue);
    this.threads = settings.threads();
    this.loop = new TurnLoop(settings, agent, 0, threads.tools());
    this.driver = new RunDriver(loop, settings);
    this.serving = new Serving(agent, store, driver);
    this.settings = settings;
  }

  /**
   * Starts a builder. The executor reads tools from and writes breadcrumbs to {@code
   * runner.store()}.
   */
  public static Builder builder(LlmClient llm, ToolRunner runner) {
    return new Builder(llm, runner);
  }

  /** The agent this executor runs. */
  public AgentDefinition agent() {
    return agent;
  }

  /**
   * Asks one question: writes {@code text} as a {@link UserMessage} in session {@code sessionId},
   * answers it, and returns the recorded answer, waiting at most the {@link Builder#turnTimeout turn
   * timeout} (default 10 minutes) for it; see {@link #ask(String, String, Duration)}. Earlier turns
   * of the session are the model's memory.
   *
   * @throws LlmException if the model cannot be asked; tool failures never throw
   * @throws AgentException {@code agent_wait_timeout} when no answer came in time
   */
  public AgentResponse ask(String sessionId, String text) {
    return ask(sessionId, text, settings.turnTimeout());
  }

  /**
   * {@link #ask(String, String)}, waiting at most {@code maxWait} on the executor's {@link
   * Builder#timeSource time}. The calling thread takes the run's steps while it can; a run that then
   * waits (for an approval, a runner, another process holding it) is waited for without a thread of
   * the run's. At the deadline the caller gets an {@link AgentException} {@code
   * agent_wait_timeout} naming the run; the run itself goes on (its answer is recorded when it
   * comes, and {@link Runs#show} or {@code ./rcrt runs show} find it). An approval can keep a run
   * waiting for a day: pass the wait the caller can afford.
   *
   * @param maxWait positive
   * @throws LlmException if the model cannot be asked; tool failures never throw
   * @throws AgentException {@code agent_wait_timeout} when no answer came within {@code maxWait}
   */
  public AgentResponse ask(String sessionId, String text, Duration maxWait) {
    Objects.requireNonNull(maxWait, "maxWait");
    if (maxWait.isNegative() || maxWait.isZero()) {
      throw new IllegalArgumentException("maxWait must be positive: " + maxWait);
    }
    long started = settings.time().nanoTime();
    long heard = driver.watch();
    TurnLoop.Progress progress = loop.ask(new UserMessage(sessionId, text));
    Duration left = maxWait.minusNanos(settings.time().nanoTime() - started);
    return AgentResponse.fromBreadcrumb(awaitAnswer(progress, heard, left.isNegative() ? Duration.ZERO : left));
  }

  /**
   * The run's answer: at once when the steps just taken ended it, else when its record arrives
   * (the calling thread waits, at most {@code maxWait}; the run itself holds none).
   */
  private Breadcrumb awaitAnswer(TurnLoop.Progress progress, long heard, Duration maxWait) {
    if (progress.answer() != null) {
      return progress.answer();
    }
    try {
      return settings.time().orTimeout(answerLater(progress, heard), maxWait).get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof java.util.concurrent.TimeoutException) {
        throw new AgentException(AgentException.WAIT_TIMEOUT, "run '" + progress.runId() + "' has no answer after " + maxWait.toMillis()
            + " ms (it waits for " + (progress.waitingFor().isEmpty() ? "its steps" : progress.waitingFor()) + "); it goes on, and its"
            + " answer is recorded when it comes: ./rcrt runs show " + progress.runId(), true, null);
      }
      throw e.getCause() instanceof RuntimeException r ? r
          : new AgentException(AgentException.FAILED, "run '" + progress.runId() + "' failed: " + e.getCause(), false, e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AgentException(AgentException.FAILED,
          "interrupted while run '" + progress.runId() + "' waited (" + progress.waitingFor() + "); the run goes on in any process that takes it up",
          false, e);
    }
  }

  /**
   * A future for the answer of a run that waits, watched from now on, and looked at once more when
   * a run's record arrived while its steps were taken ({@code heard}: {@link RunDriver#watch}'s
   * mark from before them), which no wake-up of this run could have answered yet.
   */
  private CompletableFuture<Breadcrumb> answerLater(TurnLoop.Progress progress, long heard) {
    if (progress.answer() != null) {
      return CompletableFuture.completedFuture(progress.answer());
    }
    CompletableFuture<Breadcrumb> answer = driver.answerOf(progress.runId());
    driver.progressed(progress);
    if (!answer.isDone() && progress.status() != Run.Status.RUNNING && driver.heardSince(heard)) {
      driver.wake(progress.runId()); // a record that arrived before the watch began moves it on now
    }
    return answer;
  }

  /**
   * The request the first round of {@code ask(newSession, text)} would send, exactly: the system
   * prompt, the tool instructions (with each tool's inputs when the agent uses the text protocol),
   * the user message, the OpenAI {@code tools} (none for the text protocol) and the agent's
   * options. Nothing is written and the model is not asked; tools are discovered as a turn
   * discovers them.
   */
  public ChatRequest preview(String text) {
    return loop.preview(Objects.requireNonNull(text, "text"));
  }

  /**
   * {@link #ask} on a thread of this executor ({@link Builder#threadFactory}); at most 64 such
   * turns run at once. The stage fails with what {@code ask} would throw, with an {@link
   * AgentException} ({@code agent_busy}) when 64 asynchronous turns run and 10,000 more wait, or ({@code
   * agent_closed}) after {@link #close()}. Closing the executor interrupts turns still running.
   */
  public CompletionStage<AgentResponse> askAsync(String sessionId, String text) {
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(text, "text");
    return onTurnThread(() -> loop.ask(new UserMessage(sessionId, text)));
  }

  /**
   * Takes a run's steps on a thread of this executor; the stage completes with the answer, which
   * may come later from the store when the run waits (no thread waits with it).
   */
  private CompletionStage<AgentResponse> onTurnThread(java.util.function.Supplier<TurnLoop.Progress> steps) {
    CompletableFuture<AgentResponse> answered = new CompletableFuture<>();
    try {
      threads.turn(() -> {
        try {
          long heard = driver.watch();
          answerLater(steps.get(), heard).whenComplete((b, e) -> {
            if (e != null) {
              answered.completeExceptionally(e);
            } else {
              answered.complete(AgentResponse.fromBreadcrumb(b));
            }
          });
        } catch (Throwable t) {
          answered.completeExceptionally(t);
          Throwables.rethrowIfFatal(t);
        }
        return null;
      });
    } catch (AgentException refused) {
      answered.completeExceptionally(refused);
    }
    return answered;
  }

  /**
   * Continues run {@code runId} of this agent from its records, in this process: after the
   * process that took its steps died, or to take up a run that waits. A recorded round is not asked
   * again, a call with a response does not run again. The stage completes with the run's answer
   * (at once when it has one), fails with a {@link ValidationException} when this agent has
   * recorded no round of such a run (a run that never got that far is started again from its
   * message, by {@link #answer} or a running executor's {@link #start()}), or with what the model
   * client threw.
   */
  public CompletionStage<AgentResponse> resume(String runId) {
    Objects.requireNonNull(runId, "runId");
    return onTurnThread(() -> loop.resume(runId).orElseThrow(() -> new ValidationException(
        "agent '" + agent.agentId() + "' has recorded no round of run '" + runId + "'; a run that never recorded one is started"
            + " again from its message (./rcrt runner --agents takes up unanswered messages)")));
  }

  /**
   * {@link #answer} on a thread of this executor: the stage completes with the run's answer, which
   * may come later from the store when the run waits (for approval, for a runner); no thread waits
   * with it. Fails as {@link #askAsync} does.
   */
  public CompletionStage<AgentResponse> answerAsync(Breadcrumb trigger) {
    Objects.requireNonNull(trigger, "trigger");
    return onTurnThread(() -> loop.answer(trigger));
  }

  /** The id of the run this executor makes of a stored trigger ({@code user.message.v1} or {@code agent.context.v1}). */
  public String runIdOf(Breadcrumb trigger) {
    return loop.runIdOf(trigger);
  }

  /**
   * Answers a stored {@code user.message.v1} (one the host or another process wrote) and writes
   * the {@code agent.response.v1}.
   *
   * @return the stored response breadcrumb; {@link AgentResponse#fromBreadcrumb} reads it
   * @throws ValidationException if the trigger is not a user message with {@code context.content}
   * @throws AgentException {@code agent_wait_timeout} when the run has no answer within the turn timeout (it goes on)
   * @throws LlmException if the model cannot be asked; tool failures never throw
   */
  public Breadcrumb answer(Breadcrumb trigger) {
    long heard = driver.watch();
    return awaitAnswer(loop.answer(trigger), heard, settings.turnTimeout());
  }

  /**
   * Follows the text of run {@code runId}'s model rounds as this executor asks them in this process:
   * while the subscription is open, each round of the run that starts here is asked with {@code
   * stream: true} and {@code listener} gets its text as the model writes it, scrubbed of every
   * secret value the runner knows (an ending that could begin one is held back until more text, or
   * the round's end, shows it is none), in order; a round already streaming to another follower is
   * first given its text so far. Only rounds that offer tools natively stream to followers (a text
   * or envelope round's text is its calls), and a specialist's rounds do not; a round asked in
   * another process streams nothing here. The records tell every round's text in any case (the
   * {@code agent.response.v1} {@code message} of the round, and of the answer); the same text,
   * scrubbed alike. Subscribe before the run starts ({@link #runIdOf} names it) to miss nothing.
   *
   * @return closes the subscription (idempotent); the executor's {@link #close()} does not
   */
  public Subscription streamText(String runId, RunTextListener listener) {
    return settings.text().follow(Objects.requireNonNull(runId, "runId"), Objects.requireNonNull(listener, "listener"));
  }

  /**
   * Serves this agent's runs from the store, in this process among any others doing the same:
   * subscribes to the agent's trigger selectors and starts a run for each new matching {@code
   * user.message.v1} or RCRT {@code agent.context.v1} (which names the user message it assembles
   * context for); continues waiting runs of this agent when their responses or approval decisions
   * arrive; takes over runs whose process died once their lease runs out; and, now, takes up the
   * newest 500 unanswered messages. Runs are claimed, so each step is taken by one
   * process. Steps run on the executor's turn threads. Model failures are recorded as error
   * answers; nothing escapes. Other records a trigger selector matches are left alone.
   *
   * @return closes every subscription; steps already running finish
   */
  public Subscription start() {
    return serving.start();
  }

  /**
   * Stops the threads the executor made (parallel tool calls, specialists, {@link #askAsync}
   * turns; running ones are interrupted) and waits up to 5 s for the interrupted turns to end, so
   * that the runs they held are free for another executor or process at once rather than a lease
   * later (not when called from one of those turns); then gives back the claims of runs whose turns
   * are still going (such a turn finds its claim gone at its next write and stops without acting;
   * a tool call it has under way keeps its own claim until it returns). A host's tool pool is left
   * alone. Idempotent.
   */
  @Override
  public void close() {
    driver.close();
    threads.close();
    settings.leases().closeAndGiveBack(); // a turn that outlived the wait acts no more: its writes are fenced by the claim
  }

  /** Builder for {@link AgentExecutor}. Not thread-safe. */
  public static final class Builder {
    private final LlmClient llm;
    private final ToolRunner runner;
    private final ToolBudget budget = new ToolBudget();
    private @Nullable AgentDefinition agent;
    private int maxRounds = 10;
    private int historyLimit = 20;
    private int parallelism = 4;
    private @Nullable ExecutorService toolPool;
    private @Nullable ThreadFactory threadFactory;
    private @Nullable StreamListener streamListener;
    private AgentObserver observer = AgentObserver.NONE;
    private ToolMode toolMode = ToolMode.DIRECT;
    private Duration responseTimeout = Duration.ofSeconds(60);
    private int maxAgentDepth = 2;
    private Duration specialistTimeout = Duration.ofSeconds(120);
    private @Nullable TimeSource time;
    private Duration turnTimeout = Duration.ofMinutes(10);
    private Duration runLease = Duration.ofSeconds(15);

    private Builder(LlmClient llm, ToolRunner runner) {
      this.llm = Objects.requireNonNull(llm, "llm");
      this.runner = Objects.requireNonNull(runner, "runner");
    }

    /** The agent to run; required. */
    public Builder agent(AgentDefinition agent) {
      this.agent = Objects.requireNonNull(agent, "agent");
      return this;
    }

    /** How many model calls one turn may make before it stops; default 10, at least 1. */
    public Builder maxRounds(int maxRounds) {
      if (maxRounds < 1) {
        throw new IllegalArgumentException("maxRounds < 1: " + maxRounds);
      }
      this.maxRounds = maxRounds;
      return this;
    }

    /**
     * How many earlier messages of the session are sent, at most; default 20, 0 for none. An
     * assistant {@code tool_calls} message and its results are kept or dropped together.
     */
    public Builder historyLimit(int historyLimit) {
      if (historyLimit < 0) {
        throw new IllegalArgumentException("historyLimit < 0: " + historyLimit);
      }
      this.historyLimit = historyLimit;
      return this;
    }

    /**
     * Where the calls of one answer run concurrently; the host keeps ownership. Default: a pool
     * of {@link #parallelism} threads from {@link #threadFactory}, owned (and closed) by the executor.
     */
    public Builder toolExecutor(ExecutorService pool) {
      this.toolPool = Objects.requireNonNull(pool, "pool");
      return this;
    }

    /**
     * How many tool calls of one answer run at once on the executor's own pool (and on each
     * specialist's); default 4, at least 1. Not used for the calls when {@link #toolExecutor} is set.
     */
    public Builder parallelism(int calls) {
      if (calls < 1) {
        throw new IllegalArgumentException("parallelism < 1: " + calls);
      }
      this.parallelism = calls;
      return this;
    }

    /**
     * Makes every thread the executor runs work on: parallel tool calls, specialists' turns and
     * {@link AgentExecutor#askAsync} turns. Default: daemon platform threads named {@code
     * rcrt-agent-<id>-N}, so an executor left open never keeps a JVM alive. On Java 21 and newer a
     * host may pass {@code Thread.ofVirtual().factory()}: the executor's waits (the model, tools,
     * specialists) then hold no platform thread. The executor stops the pools it made on {@link
     * AgentExecutor#close()}.
     */
    public Builder threadFactory(ThreadFactory factory) {
      this.threadFactory = Objects.requireNonNull(factory, "factory");
      return this;
    }

    /** Told of every turn, for tracing and metrics ({@code rcrt-opentelemetry}); default {@link AgentObserver#NONE}. */
    public Builder observer(AgentObserver observer) {
      this.observer = Objects.requireNonNull(observer, "observer");
      return this;
    }

    /** Receives the answer's text as it streams in ({@code stream: true}); default none. */
    public Builder streamListener(@Nullable StreamListener listener) {
      this.streamListener = listener;
      return this;
    }

    /**
     * Run tools in-process ({@link ToolMode#DIRECT}, the default) or through the store ({@link
     * ToolMode#EVENT}), waiting at most {@code responseTimeout} (default 60 s) for each response.
     */
    public Builder toolMode(ToolMode mode, Duration responseTimeout) {
      this.toolMode = Objects.requireNonNull(mode, "mode");
      if (responseTimeout.isNegative() || responseTimeout.isZero()) {
        throw new IllegalArgumentException("responseTimeout must be positive: " + responseTimeout);
      }
      this.responseTimeout = responseTimeout;
      return this;
    }

    /**
     * How deep agents may call agents (a primary agent is depth 0), and how long a specialist may
     * take; defaults 2 and 120 s.
     */
    public Builder agentsAsTools(int maxDepth, Duration timeout) {
      if (maxDepth < 0 || timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("maxDepth must be >= 0 and timeout positive");
      }
      this.maxAgentDepth = maxDepth;
      this.specialistTimeout = timeout;
      return this;
    }

    /**
     * The time the loop's waits are measured on: a run's deadline, event mode's response timeout,
     * run leases and a specialist's timeout. Default: the runner's ({@link ToolRunner#timeSource()}),
     * so a test clock given to the runner governs them all. Response timeouts are measured from the
     * request record's creation time, so the store must keep the same time (in a deployment both
     * are the system clock; a test gives its store the same {@code TestClock}).
     */
    public Builder timeSource(TimeSource time) {
      this.time = Objects.requireNonNull(time, "time");
      return this;
    }

    /**
     * How long a run may take before it ends with an error answer ({@code agent_timeout}),
     * measured from its start, not counting the time its calls wait for approval (an approval's
     * own expiry bounds that); default 10 minutes. Checked whenever a process takes the run's
     * steps, and when a waiting run's deadline comes.
     */
    public Builder turnTimeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("turnTimeout must be positive: " + timeout);
      }
      this.turnTimeout = timeout;
      return this;
    }

    /**
     * How long a process's claim on a run lasts unrenewed: renewed every third of it while the
     * process takes the run's steps; another process takes the run over this long after its
     * process died. Default 15 s, at least 30 ms.
     *
     * <p>It must outlast the process's longest stop: no renewal runs while the JVM is stopped for
     * garbage collection, and G1 stopped runners for 60 to 140 ms on a loaded 2-core machine. Under
     * 300 ms, run on ZGC ({@code -XX:+UseZGC}); otherwise other processes take runs over during
     * the pauses and ask their model rounds again (fencing still runs each tool once).
     */
    public Builder runLease(Duration lease) {
      if (lease.compareTo(Duration.ofMillis(30)) < 0) {
        throw new IllegalArgumentException("runLease must be at least 30 ms: " + lease);
      }
      this.runLease = lease;
      return this;
    }

    /**
     * An executor with this builder's settings as they are now; changing the builder later does
     * not change it.
     *
     * @throws NullPointerException if no agent was set
     */
    public AgentExecutor build() {
      AgentDefinition definition = Objects.requireNonNull(agent, "agent");
      ThreadFactory factory = threadFactory != null ? threadFactory : DaemonThreads.factory("rcrt-agent-" + definition.agentId());
      TimeSource clock = time != null ? time : runner.timeSource();
      String owner = "agent:" + definition.agentId() + ":" + ManagementFactory.getRuntimeMXBean().getName() + ":" + Ids.random().substring(0, 8);
      LoopSettings settings =
          new LoopSettings(
              llm, runner, maxRounds, historyLimit, parallelism, new AgentThreads(factory, parallelism, toolPool), new RunText(streamListener, runner),
              toolMode == ToolMode.EVENT, responseTimeout, maxAgentDepth, specialistTimeout, clock, budget, observer,
              Leases.claimsOf(runner.store(), clock), new Leases("rcrt-agent-" + definition.agentId(), clock), owner, runLease, turnTimeout);
      return new AgentExecutor(settings, definition);
    }
  }
}
