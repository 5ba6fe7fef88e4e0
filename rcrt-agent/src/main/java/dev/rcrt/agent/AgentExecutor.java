package dev.rcrt.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.agent.internal.loop.ContextSources;
import dev.rcrt.agent.internal.loop.SessionMemory;
import dev.rcrt.agent.internal.loop.TextToolCalls;
import dev.rcrt.agent.internal.loop.ToolBudget;
import dev.rcrt.agent.internal.loop.ToolResults;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbEvent;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.ContextView;
import dev.rcrt.core.LoadReport;
import dev.rcrt.core.Principal;
import dev.rcrt.core.RcrtException;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.core.TimeSource;
import dev.rcrt.core.ValidationException;
import dev.rcrt.core.internal.Ids;
import dev.rcrt.tools.ToolCallOptions;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolImplementation;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an agent's turns: for each trigger (an RCRT {@code user.message.v1} breadcrumb with {@code
 * context.content} and a {@code session:<id>} tag) it
 *
 * <ol>
 *   <li>discovers the tools in the store (a tool written a moment ago is offered on the next turn),
 *       keeps the agent's {@code tool_categories}, fits them into {@code tool_budget_tokens} by
 *       relevance to the message, and, for a primary agent, adds every enabled specialist agent as
 *       a tool;
 *   <li>builds the messages: the system prompt; the agent's {@code context_sources} as titled
 *       sections, or else the tool instructions; the session's memory; the trigger;
 *   <li>asks the {@link LlmClient}, offering the tools as OpenAI {@code tools} (or, for an agent
 *       with {@code tool_protocol: "text"}, describing the JSON to write), streaming the text to the
 *       {@link Builder#streamListener listener} when there is one;
 *   <li>runs the calls of one answer concurrently on a bounded pool, each through the {@link
 *       ToolRunner}'s chain (trust, approval, validation, the {@code tool.request.v1} / {@code
 *       tool.response.v1} trail) as {@code agent:<agent_id>}, pinned to the tool version the model
 *       was offered, and returns the results in call order as {@code role: tool} messages;
 *   <li>repeats until the model answers without tool calls or the round limit is reached;
 *   <li>writes an {@code agent.response.v1} ({@code context.message}, tags {@code agent:response}
 *       and the session tag).
 * </ol>
 *
 * <p>An unknown tool, arguments that are not JSON or break the schema, a tool failure or timeout,
 * a denied approval and a specialist that fails all go back to the model as tool messages saying
 * what is wrong, so it can correct itself; one failing call never cancels the others, and none of
 * them ends the turn. Reaching the round limit ends it with a response that says so. A failure to
 * talk to the model is an {@link LlmException} from {@link #answer}; in subscribed mode ({@link
 * #start()}) it is recorded as an {@code agent.response.v1} with {@code status: "error"}.
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
 * <p>Thread-safe: turns for different triggers may run at once. {@link #close()} stops the pool
 * the executor created (a pool the host passed in is left alone).
 */
public final class AgentExecutor implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AgentExecutor.class);

  /** The schema of triggers. */
  public static final String USER_MESSAGE = "user.message.v1";

  /** The schema of answers. */
  public static final String AGENT_RESPONSE = "agent.response.v1";

  /** How tool calls are carried out. */
  public enum ToolMode {
    /** The executor runs each call through its {@link ToolRunner}. */
    DIRECT,
    /** The executor writes each request and waits for a listening runner's response. */
    EVENT
  }

  private final Builder settings;
  private final AgentDefinition agent;
  private final BreadcrumbStore store;
  private final ToolRunner runner;
  private final int depth;
  private final ExecutorService pool;
  private final boolean ownsPool;
  private final ToolPromptAdapter adapter = new ToolPromptAdapter();
  private final ToolBudget budget;
  private final ContextView views;

  private AgentExecutor(Builder b, AgentDefinition agent, int depth, @Nullable ExecutorService pool) {
    this.settings = b;
    this.agent = agent;
    this.store = b.runner.store();
    this.runner = b.runner;
    this.depth = depth;
    this.ownsPool = pool == null;
    this.pool = pool != null ? pool : daemonPool(b.parallelism, "rcrt-agent-" + agent.agentId());
    this.budget = b.budget;
    this.views =
        ContextView.builder(store)
            .lenient(true)
            .trustedWriters(p -> runner.policy().trusts(p, ContextView.SCHEMA_DEFINITION))
            .build();
  }

  /**
   * Starts a builder. The executor reads tools from and writes breadcrumbs to {@code
   * runner.store()}.
   */
  public static Builder builder(LlmClient llm, ToolRunner runner) {
    return new Builder(llm, runner);
  }

  /**
   * A {@code user.message.v1} breadcrumb to write as a trigger: {@code context {content,
   * session_id}}, tags {@code user:message} and {@code session:<sessionId>}.
   */
  public static BreadcrumbCreate userMessage(String sessionId, String content) {
    ObjectNode context = RcrtJson.object().put("content", content).put("session_id", sessionId);
    return BreadcrumbCreate.builder(USER_MESSAGE, "User message")
        .context(context)
        .tags("user:message", "session:" + sessionId)
        .createdBy("user")
        .build();
  }

  /** The agent this executor runs. */
  public AgentDefinition agent() {
    return agent;
  }

  /** What one turn offers the model: the tools (and specialists) and the text that describes them. */
  private record Offer(ToolPrompt prompt, Map<String, ToolDefinition> byName, String instructions, boolean textProtocol) {}

  /**
   * Answers one trigger and writes the {@code agent.response.v1}.
   *
   * @param trigger a stored {@code user.message.v1} breadcrumb
   * @return the stored response breadcrumb
   * @throws ValidationException if the trigger has no {@code context.content}
   * @throws LlmException if the model cannot be asked; tool failures never throw
   */
  public Breadcrumb answer(Breadcrumb trigger) {
    String content = trigger.contextText("content");
    if (content == null) {
      throw new ValidationException(
          "user message '" + trigger.id() + "' context/content: required, found none");
    }
    String session = sessionOf(trigger);
    Offer offer = offer(content, session);

    List<ChatMessage> messages = new ArrayList<>();
    messages.add(ChatMessage.system(agent.systemPrompt()));
    if (!offer.instructions().isEmpty()) {
      messages.add(ChatMessage.system(offer.instructions()));
    }
    messages.addAll(SessionMemory.before(store, trigger, session, settings.historyLimit));
    messages.add(ChatMessage.user(content));

    Turn turn = new Turn();
    String answer = null;
    while (answer == null && turn.rounds < settings.maxRounds) {
      turn.rounds++;
      String round = trigger.id() + "#" + turn.rounds;
      ChatRequest request =
          new ChatRequest(
              agent.model(), messages, offer.textProtocol() ? null : offer.prompt().tools(), agent.temperature(),
              depth == 0 ? settings.streamListener : null);
      ChatResponse response = settings.llm.chat(request);
      turn.add(response.usage());
      ChatMessage assistant = response.message();
      List<ToolCall> calls = assistant.toolCalls();
      boolean written = false;
      if (calls.isEmpty() && assistant.content() != null) {
        calls = TextToolCalls.parse(assistant.content(), String.valueOf(turn.rounds));
        written = !calls.isEmpty();
      }
      if (calls.isEmpty()) {
        answer = assistant.content() == null ? "" : assistant.content();
        break;
      }
      turn.toolCalls += calls.size();
      List<String> results = runCalls(calls, offer, session, round);
      if (written) {
        messages.add(ChatMessage.assistant(assistant.content(), List.of()));
        StringBuilder text = new StringBuilder("Tool results:");
        for (int i = 0; i < calls.size(); i++) {
          text.append("\n").append(calls.get(i).name()).append(": ").append(results.get(i));
        }
        messages.add(ChatMessage.user(text.toString()));
      } else {
        messages.add(assistant);
        for (int i = 0; i < calls.size(); i++) {
          messages.add(ChatMessage.tool(calls.get(i).id(), results.get(i)));
        }
      }
    }
    boolean limited = answer == null;
    if (limited) {
      answer =
          "I stopped after " + settings.maxRounds + " rounds of tool calls without reaching a final answer"
              + " (the round limit is " + settings.maxRounds + "). Please ask again, more specifically.";
    }
    ObjectNode context = responseContext(answer, session, trigger, turn);
    context.put("status", limited ? "round_limit" : "success");
    return store.create(response(context, session));
  }

  /**
   * Subscribes to the agent's trigger selectors and answers each new matching {@code
   * user.message.v1}, one at a time per selector, on the store's event thread. Model failures are
   * recorded as error responses; nothing escapes.
   *
   * @return closes every subscription; answers already running finish
   */
  public Subscription start() {
    List<Selector> selectors =
        agent.subscriptions().isEmpty() ? List.of(Selector.schema(USER_MESSAGE)) : agent.subscriptions();
    List<Subscription> subs = new ArrayList<>();
    for (Selector selector : selectors) {
      subs.add(store.subscribe(selector, this::onEvent));
    }
    return () -> subs.forEach(Subscription::close);
  }

  private void onEvent(BreadcrumbEvent event) {
    Breadcrumb trigger = event.breadcrumb();
    if (event.type() != BreadcrumbEvent.Type.CREATED || !USER_MESSAGE.equals(trigger.schemaName())) {
      return;
    }
    try {
      answer(trigger);
    } catch (RcrtException e) {
      LOG.warn("agent '{}' could not answer '{}': {}", agent.agentId(), trigger.id(), e.getMessage());
      String session = sessionOf(trigger);
      ObjectNode context =
          responseContext("Sorry, I could not answer: " + e.getMessage(), session, trigger, new Turn());
      context.put("status", "error");
      context.putObject("error").put("code", e.code()).put("message", e.getMessage());
      store.create(response(context, session));
    }
  }

  // ------------------------------------------------------------------ what the model is offered

  private Offer offer(String message, String session) {
    LoadReport<ToolDefinition> discovered = runner.discovery().discover();
    discovered.problems().forEach(p -> LOG.warn("tool breadcrumb skipped: {}", p));
    List<ToolDefinition> tools = new ArrayList<>(discovered.items());
    boolean text = "text".equals(agent.context().path("tool_protocol").asText("native").toLowerCase(Locale.ROOT));
    JsonNode categories = agent.context().path("tool_categories");
    if (categories.isArray() && !categories.isEmpty()) {
      Set<String> wanted = new HashSet<>();
      categories.forEach(c -> wanted.add(c.asText()));
      tools.removeIf(t -> t.category() == null || !wanted.contains(t.category()));
    }
    JsonNode limit = agent.context().path("tool_budget_tokens");
    if (limit.canConvertToInt() && limit.asInt() > 0) {
      tools = budget.select(tools, message, limit.asInt(), agent.model(), !text);
    }
    tools.addAll(specialists());
    ToolPrompt prompt = text ? adapter.adapt(tools) : adapter.adaptForFunctionCalling(tools);
    Map<String, ToolDefinition> byName = new LinkedHashMap<>();
    tools.forEach(t -> byName.put(t.name(), t));
    String instructions =
        ContextSources.build(store, views, agent.context(), session).orElse(prompt.text())
            + (text && !tools.isEmpty() ? TextToolCalls.INSTRUCTIONS : "");
    return new Offer(prompt, byName, instructions, text);
  }

  /**
   * For a primary agent below the depth limit: every enabled, non-primary agent as a tool whose
   * implementation type is {@code agent}, parameters {@code {message}} unless it declares its own.
   */
  private List<ToolDefinition> specialists() {
    if (!agent.context().path("is_primary").asBoolean(false) || depth >= settings.maxAgentDepth) {
      return List.of();
    }
    List<ToolDefinition> out = new ArrayList<>();
    for (String schema : AgentDefinition.SCHEMAS) {
      for (Breadcrumb b : store.search(Selector.schema(schema), 500, 0)) {
        JsonNode c = b.context();
        if (!c.path("enabled").asBoolean(false) || c.path("is_primary").asBoolean(false)) {
          continue;
        }
        if (!runner.policy().trusts(Principal.writerOf(b), b.schemaName())) {
          LOG.warn("specialist agent '{}' skipped: written by {}, whom the trust policy does not trust", b.id(), Principal.writerOf(b));
          continue;
        }
        AgentDefinition specialist;
        try {
          specialist = AgentDefinition.fromBreadcrumb(b);
        } catch (ValidationException e) {
          LOG.warn("specialist agent skipped: {}", e.getMessage());
          continue;
        }
        if (specialist.agentId().equals(agent.agentId())) {
          continue;
        }
        String description =
            c.hasNonNull("toolDescription") ? c.get("toolDescription").asText()
                : c.hasNonNull("description") ? c.get("description").asText()
                : b.description() != null ? b.description() : b.title();
        JsonNode parameters = c.path("parameters").isObject() ? c.get("parameters") : MESSAGE_PARAMETERS;
        out.add(new ToolDefinition(
            specialist.agentId(), description, "agent", null, parameters, null, List.of(),
            new ToolImplementation("agent", RcrtJson.object().put("agent_id", specialist.agentId())),
            settings.specialistTimeout.plus(SPECIALIST_GRACE), b.id(), b.version(), String.valueOf(b.schemaName()), c));
      }
    }
    return out;
  }

  /** A specialist's tool deadline is its timeout plus this, so that its own timeout message is the one recorded. */
  private static final Duration SPECIALIST_GRACE = Duration.ofSeconds(1);

  private static final JsonNode MESSAGE_PARAMETERS =
      RcrtJson.parse("{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\",\"description\":\"The message to send to the agent\"}},\"required\":[\"message\"]}");

  // ------------------------------------------------------------------ running the calls

  /** Runs the calls of one answer concurrently; results in call order, one per call. */
  private List<String> runCalls(List<ToolCall> calls, Offer offer, String session, String round) {
    if (calls.size() == 1) {
      return List.of(runCall(calls.get(0), offer, session, round));
    }
    List<Future<String>> running = new ArrayList<>();
    for (ToolCall call : calls) {
      running.add(pool.submit(() -> runCall(call, offer, session, round)));
    }
    List<String> results = new ArrayList<>();
    for (int i = 0; i < calls.size(); i++) {
      try {
        results.add(running.get(i).get());
      } catch (ExecutionException e) {
        results.add("Error: the call to '" + calls.get(i).name() + "' failed: " + e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        results.add("Error: the call to '" + calls.get(i).name() + "' was interrupted.");
      }
    }
    return results;
  }

  /** One tool call → the text of the message that answers it. */
  private String runCall(ToolCall call, Offer offer, String session, String round) {
    Optional<String> name = offer.prompt().toolFor(call.name());
    if (name.isEmpty()) {
      return "Error: unknown tool '" + call.name() + "'. Available tools: "
          + String.join(", ", offer.prompt().functionToTool().keySet())
          + ". Call one of these, or answer without a tool.";
    }
    JsonNode input;
    try {
      input = RcrtJson.parse(call.arguments().isBlank() ? "{}" : call.arguments());
    } catch (ValidationException e) {
      return "Error: the arguments for '" + call.name() + "' are " + e.getMessage()
          + ". Call it again with a JSON object that matches its parameters.";
    }
    if (!input.isObject()) {
      return "Error: the arguments for '" + call.name() + "' must be a JSON object, found "
          + input.getNodeType().toString().toLowerCase(Locale.ROOT) + ".";
    }
    ToolDefinition tool = offer.byName().get(name.get());
    ToolRequest request = new ToolRequest(Ids.random(), tool.name(), input, agent.agentId(), call.id(), round);
    ToolCallOptions options =
        ToolCallOptions.by(Principal.agent(agent.agentId())).withTags("session:" + session).withTool(tool);
    if ("agent".equals(tool.implementation().type())) {
      ToolResponse answered = runner.call(request, options.withHandler((in, ctx) -> askSpecialist(tool, in, session)));
      return answered.success() ? answered.output().path("message").asText() : ToolResults.text(answered);
    }
    if (settings.toolMode == ToolMode.EVENT) {
      return awaitResponse(request, options);
    }
    return ToolResults.text(runner.call(request, options));
  }

  /** Event-driven mode: write the request and wait for a listening runner's response. */
  private String awaitResponse(ToolRequest request, ToolCallOptions options) {
    CompletableFuture<ToolResponse> answered = runner.dispatch(request, options);
    try {
      return ToolResults.text(settings.time().orTimeout(answered, settings.responseTimeout).get());
    } catch (InterruptedException e) {
      answered.cancel(false);
      Thread.currentThread().interrupt();
      return "Error: interrupted while waiting for '" + request.tool() + "'.";
    } catch (ExecutionException e) {
      if (e.getCause() instanceof TimeoutException) {
        answered.cancel(false);
        return "Error: no tool runner answered request " + request.requestId() + " for '" + request.tool() + "' within "
            + settings.responseTimeout.toMillis() + " ms; none may be listening on this store.";
      }
      return "Error: waiting for '" + request.tool() + "' failed: " + e.getCause();
    }
  }

  /**
   * The code behind a specialist offered as a tool: runs the specialist's own turn in a
   * sub-session within the specialist timeout, on the specialist pool so that the caller can stop
   * waiting at the timeout. Runs inside the tool chain (trust, approval, validation, recording).
   */
  private JsonNode askSpecialist(ToolDefinition tool, JsonNode input, String session) {
    AgentDefinition specialist;
    try {
      specialist = AgentDefinition.fromBreadcrumb(store.get(tool.sourceId()).orElseThrow());
    } catch (RuntimeException e) {
      throw new ToolException("tool_not_found", "agent '" + tool.name() + "' is no longer available");
    }
    String message = input.path("message").isTextual() ? input.get("message").asText() : RcrtJson.write(input);
    AgentExecutor sub = new AgentExecutor(settings, specialist, depth + 1, null);
    Breadcrumb trigger = store.create(userMessage(session + "/" + specialist.agentId(), message));
    CompletableFuture<Breadcrumb> answered = new CompletableFuture<>();
    // the deadline is set before the turn starts, so it is measured from here whatever the pool does
    CompletableFuture<Breadcrumb> bounded = settings.time().orTimeout(answered, settings.specialistTimeout);
    Future<?> turn = SPECIALISTS.submit(() -> {
      try {
        answered.complete(sub.answer(trigger));
      } catch (Throwable t) {
        answered.completeExceptionally(t);
      }
    });
    try (sub) {
      String answer = String.valueOf(bounded.get().contextText("message"));
      return RcrtJson.object().put("message", answer);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof TimeoutException) {
        turn.cancel(true);
        throw new ToolException("tool_timeout", "agent '" + tool.name() + "' did not answer within " + settings.specialistTimeout.toMillis() + " ms");
      }
      throw new ToolException("tool_failed", "agent '" + tool.name() + "' failed: " + (e.getCause() == null ? e : e.getCause().getMessage()));
    } catch (InterruptedException e) {
      turn.cancel(true);
      Thread.currentThread().interrupt();
      throw new ToolException("tool_failed", "interrupted while agent '" + tool.name() + "' was answering");
    }
  }

  private static final ExecutorService SPECIALISTS = daemonPool(0, "rcrt-specialist");

  // ------------------------------------------------------------------ recording

  private static String sessionOf(Breadcrumb trigger) {
    return trigger
        .tagValue("session:")
        .orElseGet(() -> Objects.requireNonNullElse(trigger.contextText("session_id"), trigger.id()));
  }

  private ObjectNode responseContext(String message, String session, Breadcrumb trigger, Turn turn) {
    ObjectNode c = RcrtJson.object();
    c.put("message", message);
    c.put("agent_id", agent.agentId());
    c.put("session_id", session);
    c.put("trigger_id", trigger.id());
    c.put("rounds", turn.rounds);
    c.put("tool_calls", turn.toolCalls);
    if (turn.totalTokens > 0) {
      c.putObject("usage")
          .put("prompt_tokens", turn.promptTokens)
          .put("completion_tokens", turn.completionTokens)
          .put("total_tokens", turn.totalTokens);
    }
    return c;
  }

  private BreadcrumbCreate response(ObjectNode context, String session) {
    return BreadcrumbCreate.builder(AGENT_RESPONSE, "Agent response")
        .context(context)
        .tags("agent:response", "session:" + session)
        .createdBy(Principal.agent(agent.agentId()).wire())
        .build();
  }

  /** Counters of one turn. */
  private static final class Turn {
    int rounds;
    int toolCalls;
    long promptTokens;
    long completionTokens;
    long totalTokens;

    void add(ChatResponse.@Nullable Usage usage) {
      if (usage != null) {
        promptTokens += usage.promptTokens();
        completionTokens += usage.completionTokens();
        totalTokens += usage.totalTokens();
      }
    }
  }

  /** A pool of daemon threads; {@code size} 0 for an unbounded cached pool. */
  private static ExecutorService daemonPool(int size, String name) {
    AtomicInteger n = new AtomicInteger();
    java.util.concurrent.ThreadFactory threads =
        r -> {
          Thread t = new Thread(r, name + "-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        };
    return size == 0 ? Executors.newCachedThreadPool(threads) : Executors.newFixedThreadPool(size, threads);
  }

  @Override
  public void close() {
    if (ownsPool) {
      pool.shutdownNow();
    }
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
    private @Nullable StreamListener streamListener;
    private ToolMode toolMode = ToolMode.DIRECT;
    private Duration responseTimeout = Duration.ofSeconds(60);
    private int maxAgentDepth = 2;
    private Duration specialistTimeout = Duration.ofSeconds(120);
    private @Nullable TimeSource time;

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
     * of 4 daemon threads owned (and closed) by the executor.
     */
    public Builder toolExecutor(ExecutorService pool) {
      this.toolPool = Objects.requireNonNull(pool, "pool");
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

    /** @throws NullPointerException if no agent was set */
    /**
     * The time the loop's waits are measured on: event mode's response timeout and a specialist's
     * timeout. Default: the runner's ({@link ToolRunner#timeSource()}), so a test clock given to
     * the runner governs both.
     */
    public Builder timeSource(TimeSource time) {
      this.time = Objects.requireNonNull(time, "time");
      return this;
    }

    private TimeSource time() {
      return time != null ? time : runner.timeSource();
    }

    public AgentExecutor build() {
      return new AgentExecutor(this, Objects.requireNonNull(agent, "agent"), 0, toolPool);
    }
  }
}
