package dev.rcrt.tools;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbEvent;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.core.TimeSource;
import dev.rcrt.core.spi.DaemonThreads;
import dev.rcrt.core.spi.SharedHttpClient;
import dev.rcrt.tools.internal.chain.ExecutionChain;
import dev.rcrt.tools.internal.chain.JavaToolThreads;
import dev.rcrt.tools.internal.fleet.RequestWorker;
import dev.rcrt.tools.internal.loader.BuiltinLoader;
import dev.rcrt.tools.internal.loader.ImplementationLoader;
import dev.rcrt.tools.internal.loader.ModuleLoader;
import dev.rcrt.tools.internal.loader.RuntimeLoader;
import dev.rcrt.tools.internal.loader.ToolLoader;
import dev.rcrt.tools.internal.loader.http.HttpLoader;
import dev.rcrt.tools.internal.trust.NetworkGuard;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs tools. Every call, on every path (direct {@link #call}, a stored request {@link #run}, a
 * {@link #listen() listener} in event mode, the CLI, agents and their specialists), goes through
 * one chain of links (see {@link ToolInterceptor}):
 *
 * <ol>
 *   <li><b>record</b> the {@code tool.request.v1} (stamped with the caller's principal);
 *   <li><b>resolve</b> the tool once, pinned to one breadcrumb version;
 *   <li>the host's application interceptors;
 *   <li><b>trust</b>: the {@link ToolTrustPolicy} accepts the caller and the tool's writer;
 *   <li><b>approval</b> for tools that need it ({@link ApprovalHandler});
 *   <li><b>validate</b> the input against the input schema (loading the code by {@code
 *       implementation.type} once per breadcrumb version: {@code builtin}, {@code module} and
 *       {@code http} here; {@code breadcrumb} JavaScript/TypeScript with {@code rcrt-tools-js},
 *       {@code container} with {@code rcrt-tools-docker}, {@code mcp} with {@code rcrt-mcp}, and
 *       any other type a {@link ToolRuntime} on the classpath or {@link Builder#runtime} adds);
 *   <li><b>scrub</b>: the call's configuration and granted secrets; on the way back, every secret
 *       value is removed;
 *   <li>the host's runtime interceptors;
 *   <li><b>invoke</b> on the calling thread within the tool's time limit;
 *   <li>and back: output validated, the {@code tool.response.v1} recorded.
 * </ol>
 *
 * <p>Nothing a tool does escapes the runner: an unknown or untrusted tool, a denial, a schema
 * violation, a thrown handler, a failing endpoint or a timeout becomes a response with {@code
 * success() == false}, an error that names the pointer or cause, and an {@code error_code} (see
 * {@link ToolException}). Only a store failure while recording propagates.
 *
 * <p>The runner watches the store: a tool breadcrumb that is updated runs its new version on the
 * next call, and one that is deleted is unloaded (what its runtime held for it released) once the
 * calls still using it end. A JavaScript tool's code is read once per load, pinned for every call
 * of that load; an update of the breadcrumb holding it unloads the tool, so the next call reads it.
 *
 * <p>Thread-safe: any number of calls may run at once. {@link #close()} stops the watch and the
 * listener threads, unloads every tool and closes the runtimes.
 */
public final class ToolRunner implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ToolRunner.class);

  /** The tag of requests a runner runs itself ({@link #call}); listeners leave them alone. */
  public static final String DIRECT_TAG = ExecutionChain.DIRECT_TAG;

  private final BreadcrumbStore store;
  private final ToolDiscovery discovery;
  private final ToolTrustPolicy policy;
  private final ToolLoader loader;
  private final ExecutionChain chain;
  private final TimeSource time;
  private final Duration defaultTimeout;
  private final ExecutorService listenerThreads;
  /** The threads Java handlers run on, bounded by each call's deadline. */
  private final JavaToolThreads javaThreads;
  private final Duration claimLease;
  private final Set<dev.rcrt.core.Principal> approvers;
  private final Duration approvalExpiry;
  private final int maxAttempts;
  private final List<Subscription> watches = new java.util.concurrent.CopyOnWriteArrayList<>();
  /** The schemas of code breadcrumbs watched so far; see {@link #watchCode}. */
  private final Set<String> codeSchemas = new java.util.HashSet<>();
  /** What {@link #dispatch} waits for, by request id. */
  private final Map<String, CompletableFuture<ToolResponse>> awaited = new ConcurrentHashMap<>();
  /** The responses subscription of {@link #dispatch}, made on its first use. */
  private @Nullable Subscription responses;
  /** The {@link #listen()} subscriptions still open, stopped by {@link #close()}. */
  private final Set<Subscription> listening = ConcurrentHashMap.newKeySet();

  private ToolRunner(Builder b) {
    this.store = b.store;
    this.policy = b.policy;
    this.time = b.time;
    this.defaultTimeout = b.defaultTimeout;
    this.claimLease = b.claimLease;
    this.maxAttempts = b.maxAttempts;
    this.approvers = Set.copyOf(b.approvers);
    this.approvalExpiry = b.approvalExpiry;
    Map<String, ToolModule> modules = new LinkedHashMap<>();
    Map<String, ToolHandler> builtin = new LinkedHashMap<>(BuiltinTools.handlers());
    for (ToolModule m : ServiceLoader.load(ToolModule.class, ToolRunner.class.getClassLoader())) {
      modules.put(m.name(), m);
      builtin.putAll(m.handlers());
    }
    b.modules.forEach(m -> modules.put(m.name(), m));
    builtin.putAll(b.handlers);
    NetworkGuard network = new NetworkGuard(b.policy, b.http);
    Map<String, ImplementationLoader> byType = new LinkedHashMap<>();
    byType.put("builtin", new BuiltinLoader(builtin));
    byType.put("module", new ModuleLoader(modules, b.policy));
    byType.put("http", new HttpLoader(network));
    Map<String, ToolRuntime> runtimes = new LinkedHashMap<>();
    for (ToolRuntime r : ServiceLoader.load(ToolRuntime.class, ToolRunner.class.getClassLoader())) {
      runtimes.put(r.type(), r);
    }
    b.runtimes.forEach(r -> runtimes.put(r.type(), r));
    runtimes.forEach((type, r) -> byType.put(type, new RuntimeLoader(r, b.store, b.defaultTimeout, b.policy, network)));
    this.loader = new ToolLoader(byType, this::watchCode);
    this.javaThreads = new JavaToolThreads(b.time);
    this.discovery = new ToolDiscovery(b.store, b.policy, this::runsAsDefined);
    this.chain =
        new ExecutionChain(
            new ExecutionChain.Settings(
                b.store, discovery, loader, b.policy, b.secrets, b.defaultTimeout, b.approval, b.approvalPolicy,
                b.approvalExpiry, b.approvers, b.application, b.runtime, b.listeners, b.maxOutputBytes, b.time, javaThreads));
    this.listenerThreads = DaemonThreads.pool(b.listenerConcurrency, "rcrt-tool-listener");
    for (String schema : ToolDefinition.TOOL_SCHEMAS) {
      watches.add(store.subscribe(Selector.schema(schema), this::onToolChange));
    }
  }

  /**
   * A builder for a runner over {@code store}, with the {@link BuiltinTools} registered and {@link
   * ToolTrustPolicy#defaults()}.
   */
  public static Builder builder(BreadcrumbStore store) {
    return new Builder(store);
  }

  /** The store this runner reads tools from and records calls in. */
  public BreadcrumbStore store() {
    return store;
  }

  /** The discovery this runner resolves tools with (trusted tools only); share it to avoid parsing tools twice. */
  public ToolDiscovery discovery() {
    return discovery;
  }

  /**
   * What a call to {@code definition} would be refused for in the definition itself, found without
   * loading or running it: schema and example problems, an implementation type this runner cannot
   * run, a builtin tool whose handler is not registered, and the implementation's own errors (an
   * HTTP tool without an endpoint, a container tool without an image). What depends on the moment
   * (trust, approval, an image not pulled) shows only when the tool is called. Empty when nothing
   * is wrong.
   */
  public List<String> problems(ToolDefinition definition) {
    return loader.problems(definition);
  }

  /**
   * Whether this runner can run {@code definition}, as far as a cheap look tells: a runtime serves
   * its implementation type, and a builtin tool's handler is registered. Agents are offered only
   * such tools; {@link #problems} says more, at more cost. Thread-safe.
   */
  public boolean serves(ToolDefinition definition) {
    return loader.serves(definition);
  }

  /**
   * Discovery's test among tools of one name: this runner serves it and its schemas compile (broken
   * examples only warn). Called when names collide, on every discovery; whether a record version's
   * schemas compile is kept ({@link #schemasCompile}), so they are compiled once per version.
   */
  private boolean runsAsDefined(ToolDefinition definition) {
    if (!loader.serves(definition)) {
      return false;
    }
    if (schemasCompile.size() > 10_000) {
      schemasCompile.clear(); // a bound, not a policy: records churn, the next discoveries refill it
    }
    return schemasCompile.computeIfAbsent(definition.sourceId() + "@" + definition.sourceVersion(), k -> {
      List<String> examples = definition.exampleProblems();
      return definition.problems().stream().allMatch(examples::contains);
    });
  }

  /** Whether a tool record version's schemas compile, by {@code sourceId@sourceVersion}. */
  private final Map<String, Boolean> schemasCompile = new java.util.concurrent.ConcurrentHashMap<>();

  /** The time this runner measures deadlines on ({@link Builder#timeSource}). */
  public TimeSource timeSource() {
    return time;
  }

  /** The run time limit of a call whose tool names none ({@link Builder#defaultTimeout}; 30 s unless set). */
  public Duration defaultTimeout() {
    return defaultTimeout;
  }

  /**
   * Whose {@link ApprovalDecision}s and {@link InputResponse}s count besides the host's ({@link
   * Builder#approvers}); an unmodifiable set, empty unless set.
   */
  public Set<dev.rcrt.core.Principal> approvers() {
    return approvers;
  }

  /**
   * How long an approval request, and a tool's {@link InputRequest}, waits for a person before it
   * runs out ({@link Builder#approvalExpiry}; 24 h unless set).
   */
  public Duration approvalExpiry() {
    return approvalExpiry;
  }

  /** The policy this runner enforces. */
  public ToolTrustPolicy policy() {
    return policy;
  }

  /** Runs {@code request} for the host; see {@link #call(ToolRequest, ToolCallOptions)}. */
  public ToolResponse call(ToolRequest request) {
    return call(request, ToolCallOptions.host());
  }

  /**
   * Records {@code request} as a {@code tool.request.v1} (tagged {@value #DIRECT_TAG}, so listeners
   * leave it alone, and with {@code options.tags()}), runs it through the chain on this thread, and
   * records and returns the {@code tool.response.v1}.
   *
   * @return the response; {@code success() == false} for every tool-side failure, never null
   */
  public ToolResponse call(ToolRequest request, ToolCallOptions options) {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(options, "options");
    return chain.call(request, options);
  }

  /**
   * Runs a stored {@code tool.request.v1} on this thread, for its writer ({@link
   * dev.rcrt.core.Principal#writerOf}), and records the {@code tool.response.v1} with the
   * request's {@code session:} tags. A request that already has a response (for example a denied
   * one) is not run again; its recorded response is returned.
   *
   * @throws IllegalArgumentException if the breadcrumb is not a {@code tool.request.v1}
   */
  public ToolResponse run(Breadcrumb request) {
    return chain.run(requireRequest(request));
  }

  /**
   * {@link #run(Breadcrumb)}, with {@code exchange} as the call's way back to whoever asks for it
   * ({@link ToolCallOptions#exchange()}): for a caller that runs its own stored request again, such
   * as an agent's run taken up after its process stopped.
   *
   * @throws IllegalArgumentException if the breadcrumb is not a {@code tool.request.v1}
   */
  public ToolResponse run(Breadcrumb request, ToolExchange exchange) {
    return chain.run(requireRequest(request), Objects.requireNonNull(exchange, "exchange"));
  }

  private static Breadcrumb requireRequest(Breadcrumb request) {
    if (!ToolRequest.SCHEMA.equals(request.schemaName())) {
      throw new IllegalArgumentException("not a " + ToolRequest.SCHEMA + ": " + request.schemaName());
    }
    return request;
  }

  /**
   * Runs a stored {@code tool.request.v1} again whose tool the caller pins and implements: {@code
   * tool} (checked against the version the request pinned) with {@code handler} as its code, for
   * the request's writer, through the whole chain (trust, approval, validation, recording). For a
   * caller whose tool is no record, such as a specialist agent offered as a tool, whose call can
   * end {@link ToolErrorCode#TOOL_WAITING} and is then run again when its work moved on. A request
   * that already has a response is not run again; its recorded response is returned; a malformed
   * one is answered {@code tool_input_invalid}, as {@link #run(Breadcrumb)} answers it.
   *
   * @throws IllegalArgumentException if the breadcrumb is not a {@code tool.request.v1}
   */
  public ToolResponse run(Breadcrumb request, ToolDefinition tool, ToolHandler handler) {
    return chain.run(requireRequest(request), Objects.requireNonNull(tool, "tool"), Objects.requireNonNull(handler, "handler"));
  }

  /**
   * Answers a stored {@code tool.request.v1} with an error response ({@code code}, saying {@code
   * why}) without running it, unless it is answered already: for a caller that stops waiting (no
   * runner answered in time) or cannot carry a call on (an interrupted specialist). Recorded by the
   * runner with the request's {@code session:} and {@code run:} tags, idempotently per request.
   *
   * @return the response that answers the request: the earlier one, or the error recorded now
   */
  public ToolResponse fail(Breadcrumb request, ToolErrorCode code, String why) {
    return chain.fail(Objects.requireNonNull(request, "request"), List.of(), Objects.requireNonNull(code, "code"), why);
  }

  /**
   * Event-driven mode, the writing side: records {@code request} for a {@link #listen() listening}
   * runner (possibly in another process sharing the store) and completes with its response. The
   * request carries the caller's principal and, when {@code options} pins a tool, its breadcrumb id
   * and version. Only a response written by a runner counts: one a tool forged (stamped {@code
   * tool:<name>}) is ignored. The future never completes if no runner answers: wait with a
   * timeout, and cancel it to stop waiting. {@code options.handler()} is not used: listeners run only stored tools.
   */
  public CompletableFuture<ToolResponse> dispatch(ToolRequest request, ToolCallOptions options) {
    watchResponses();
    CompletableFuture<ToolResponse> answered = new CompletableFuture<>();
    awaited.put(request.requestId(), answered);
    answered.whenComplete((r, e) -> awaited.remove(request.requestId(), answered));
    try {
      submit(request, options);
    } catch (RuntimeException e) {
      answered.completeExceptionally(e);
    }
    return answered;
  }

  /** One subscription for the responses every {@link #dispatch} waits for (not one per request: a subscription costs the store work). */
  private synchronized void watchResponses() {
    if (responses == null) {
      responses = store.subscribe(Selector.schema(ToolResponse.SCHEMA), this::onResponse);
      watches.add(responses);
    }
  }

  private void onResponse(BreadcrumbEvent e) {
    String requestId = e.breadcrumb().tagValue("request:").orElse(null);
    CompletableFuture<ToolResponse> waiting = requestId == null ? null : awaited.get(requestId);
    if (waiting == null || e.type() != BreadcrumbEvent.Type.CREATED) {
      return;
    }
    if (!ToolResponse.writtenByARunner(e.breadcrumb(), policy)) {
      LOG.warn("ignored a tool.response.v1 for request '{}' written by {}: only runners answer requests",
          requestId, dev.rcrt.core.Principal.writerOf(e.breadcrumb()));
      return;
    }
    try {
      waiting.complete(ToolResponse.fromBreadcrumb(e.breadcrumb()));
    } catch (RuntimeException bad) {
      waiting.completeExceptionally(bad);
    }
  }

  /**
   * Event-driven mode, writing only: records {@code request} for a {@link #listen() listening}
   * runner, as {@link #dispatch} does, and returns the stored request without waiting for anything.
   * The caller learns of the response from the store (an agent's run continues when it arrives).
   *
   * @return the stored {@code tool.request.v1}
   * @throws dev.rcrt.core.ConflictException if a request with this id is stored already
   * @throws dev.rcrt.core.ClaimLostException if {@code options} name a claim that is no longer held; nothing is written
   */
  public Breadcrumb submit(ToolRequest request, ToolCallOptions options) {
    // recorded as a direct call records it: without a secret value the runner knows (a key the model echoed)
    com.fasterxml.jackson.databind.JsonNode input = chain.scrub(request.input());
    ToolRequest recorded = input == request.input() ? request : request.withInput(input);
    dev.rcrt.core.BreadcrumbCreate write = recorded.toBreadcrumb(options.tags(), options.caller(), options.tool());
    return options.claim() != null ? options.claim().create(write) : store.create(write);
  }

  /**
   * Event-driven mode, the running side: runs the {@code tool.request.v1}s of the store (except
   * those tagged {@value #DIRECT_TAG}) on the runner's threads, through the same chain as direct
   * calls, for the request's writer: the trust policy refuses requests written by tools. Requests
   * created from now on and those already waiting without a response are taken.
   *
   * <p>Several runners may listen on one store, in one process or many: each request is first
   * claimed through {@link BreadcrumbStore#claims()}, so one runner runs it; the claim is renewed
   * while the tool runs, and if that runner dies another takes the request over after {@link
   * Builder#claimLease(Duration)}. A tool can therefore run twice when its runner stalls past the
   * lease, but the request gets one response: responses are written with an idempotency key per
   * request, and each response is tagged {@code runner:<pid@host>:<random>}, naming the runner that
   * answered. A store without claims of its own gets claims shared by the runners of this JVM.
   *
   * @return stops taking requests; requests already started finish
   */
  public Subscription listen() {
    Subscription worker =
        new RequestWorker(store, chain::run, (r, tags, why) -> chain.fail(r, tags, ToolErrorCode.TOOL_FAILED, why), time, listenerThreads, claimLease, maxAttempts, DIRECT_TAG).start();
    Subscription[] self = new Subscription[1];
    self[0] = () -> {
      listening.remove(self[0]);
      worker.close();
    };
    listening.add(self[0]);
    return self[0];
  }

  /**
   * Treats {@code value} as a secret from now on: it is scrubbed, in every form the runner knows,
   * from every request, response, error and log this runner records, as the secrets it resolves
   * itself are. For what the runner cannot see resolved: a model client's API key or header values
   * (the {@code AgentExecutor} adds its client's {@code LlmClient.secretValues()}). Kept for the
   * runner's life, the most recent 1,024 values. Empty text is ignored. Thread-safe.
   */
  public void addSecretValue(String value) {
    chain.addSecretValue(Objects.requireNonNull(value, "value"));
  }

  /**
   * {@code text} with every secret value this runner knows replaced by {@code [REDACTED]}: what an
   * interceptor, a log or a span should record instead of the raw text. Thread-safe.
   */
  public String scrub(String text) {
    return chain.scrub(Objects.requireNonNull(text, "text"));
  }

  /**
   * A scrubber for one text still being written (a model's answer as it streams): it shows the text
   * as it grows, scrubbed of every secret value this runner knows then, and never part of a value
   * split across fragments ({@link StreamScrubber}). Each stream takes its own.
   */
  public StreamScrubber streamScrubber() {
    return new StreamScrubber(chain.secretValues());
  }

  /** {@code json} scrubbed like {@link #scrub(String)} (strings, field names, numbers); the same node when nothing in it is secret. */
  public com.fasterxml.jackson.databind.JsonNode scrub(com.fasterxml.jackson.databind.JsonNode json) {
    return chain.scrub(Objects.requireNonNull(json, "json"));
  }

  private void onToolChange(BreadcrumbEvent event) {
    if (event.type() != BreadcrumbEvent.Type.CREATED) {
      loader.unload(event.breadcrumb().id());
      loader.unloadReferencing(event.breadcrumb().id()); // a tool.code.v1 can hold another tool's code
    }
  }

  /**
   * Watches the schema of a breadcrumb that holds a tool's code (once per schema, and not the
   * tool schemas, which are watched already), so that a change to it unloads the tools using it.
   * Nothing is watched until such a tool loads: a runner gets no event of other records.
   */
  private void watchCode(String codeId) {
    String schema = store.get(codeId).map(Breadcrumb::schemaName).orElse(null);
    if (schema == null || ToolDefinition.isToolSchema(schema)) {
      return;
    }
    synchronized (codeSchemas) {
      if (codeSchemas.add(schema)) {
        watches.add(store.subscribe(Selector.schema(schema), this::onCodeChange));
      }
    }
  }

  /** A tool's code pinned at load stays until the breadcrumb holding it changes. */
  private void onCodeChange(BreadcrumbEvent event) {
    if (event.type() != BreadcrumbEvent.Type.CREATED) {
      loader.unloadReferencing(event.breadcrumb().id());
    }
  }

  /**
   * Takes no more listener work and waits up to {@code timeout} for the requests being run by
   * {@link #listen()} to finish and record their responses (close the listen subscription first).
   *
   * @return true if all finished; false if some still run (they are interrupted by {@link #close()})
   * @throws InterruptedException if the calling thread is interrupted while waiting
   */
  public boolean drain(Duration timeout) throws InterruptedException {
    listenerThreads.shutdown();
    return listenerThreads.awaitTermination(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    List.copyOf(listening).forEach(Subscription::close);
    watches.forEach(Subscription::close);
    listenerThreads.shutdownNow();
    javaThreads.close();
    loader.close();
  }

  /**
   * Java tool calls (builtin, {@code @Tool}, module handlers) that passed their deadline and still
   * run because their code ignores interruption: each call ended {@code tool_timeout} at its
   * deadline and was logged at WARN. While {@value dev.rcrt.tools.internal.chain.JavaToolThreads#MAX_ABANDONED}
   * run, further Java tool calls are refused ({@code tool_failed}) until one returns.
   */
  public int abandonedCalls() {
    return javaThreads.abandoned();
  }

  /** Builder for {@link ToolRunner}. Not thread-safe. */
  public static final class Builder {
    private final BreadcrumbStore store;
    private final Map<String, ToolHandler> handlers = new LinkedHashMap<>();
    private final List<ToolModule> modules = new ArrayList<>();
    private final List<ToolInterceptor> application = new ArrayList<>();
    private final List<ToolInterceptor> runtime = new ArrayList<>();
    private final List<ToolEventListener> listeners = new ArrayList<>();
    private final List<ToolRuntime> runtimes = new ArrayList<>();
    private Duration defaultTimeout = Duration.ofSeconds(30);
    private SecretResolver secrets = SecretResolver.environment();
    private ToolTrustPolicy policy = ToolTrustPolicy.defaults();
    private @Nullable ApprovalHandler approval;
    private Predicate<ToolDefinition> approvalPolicy = t -> false;
    private Duration approvalExpiry = Duration.ofHours(24);
    private final Set<dev.rcrt.core.Principal> approvers = new java.util.HashSet<>();
    private long maxOutputBytes = 8L * 1024 * 1024;
    private TimeSource time = TimeSource.system();
    private HttpClient http = SharedHttpClient.get();
    private Duration claimLease = Duration.ofSeconds(15);
    private int listenerConcurrency = 16;
    private int maxAttempts = 3;

    private final java.util.Map<String, String> published = new java.util.LinkedHashMap<>();
    private final List<dev.rcrt.core.BreadcrumbCreate> publish = new ArrayList<>();

    private Builder(BreadcrumbStore store) {
      this.store = Objects.requireNonNull(store, "store");
    }

    /**
     * Adds a runtime for its {@link ToolRuntime#type()}, replacing one of the same type found on
     * the classpath or built in. The runner closes it when it is closed.
     */
    public Builder runtime(ToolRuntime runtime) {
      runtimes.add(Objects.requireNonNull(runtime, "runtime"));
      return this;
    }

    /**
     * Registers the code behind builtin tool {@code name} (or behind an implementation whose
     * {@code export} is {@code name}), replacing a bundled or classpath handler of the same name.
     */
    public Builder handler(String name, ToolHandler handler) {
      handlers.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(handler, "handler"));
      return this;
    }

    /**
     * Registers every {@link Tool} method of {@code beans} as a builtin tool, and has {@link
     * #build()} publish each one's {@code tool.v1} record to the store as the host (id derived from
     * the tool's name; a definition that has not changed writes no new version), so that agents
     * discover them. Schemas are generated from the methods' parameters and return types; see
     * {@link Tool}.
     *
     * @throws IllegalArgumentException when two methods share a tool name (both are named), a
     *     parameter has no name ({@code javac -parameters} or {@link ToolParam#name()}), or a
     *     {@code @Tool} method is not public
     */
    public Builder tools(Object... beans) {
      for (dev.rcrt.tools.internal.annotated.AnnotatedTools.Found found : dev.rcrt.tools.internal.annotated.AnnotatedTools.of(beans)) {
        register(found);
      }
      return this;
    }

    /**
     * Registers a typed tool ({@link ToolHandler#typed}) and has {@link #build()} publish its {@code
     * tool.v1} record, with schemas generated from {@code input} and {@code output}, as {@link
     * #tools(Object...)} does.
     *
     * @throws IllegalArgumentException when the name is already taken by another published tool
     */
    public <I, O> Builder tool(String name, String description, Class<I> input, Class<O> output, java.util.function.Function<? super I, ? extends O> fn) {
      register(dev.rcrt.tools.internal.annotated.AnnotatedTools.typed(name, description, input, output, fn));
      return this;
    }

    private void register(dev.rcrt.tools.internal.annotated.AnnotatedTools.Found found) {
      String earlier = published.get(found.name());
      if (earlier != null) {
        throw new IllegalArgumentException(
            "tool name '" + found.name() + "' is used by both " + earlier + " and " + found.method()
                + ": give one of them another name (@Tool(name = ...))");
      }
      published.put(found.name(), found.method());
      publish.add(found.record());
      handler(found.name(), found.handler());
    }

    /**
     * Registers a module for {@code module} tools, in addition to those found on the classpath
     * through {@link ServiceLoader}; it replaces a classpath module of the same name.
     */
    public Builder module(ToolModule module) {
      modules.add(Objects.requireNonNull(module, "module"));
      return this;
    }

    /** Where {@code secret:NAME} references are resolved; default {@link SecretResolver#environment()}. */
    public Builder secretResolver(SecretResolver resolver) {
      this.secrets = Objects.requireNonNull(resolver, "resolver");
      return this;
    }

    /** What records may cause; default {@link ToolTrustPolicy#defaults()}. */
    public Builder trustPolicy(ToolTrustPolicy policy) {
      this.policy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * Decides on the spot, before a tool that needs approval runs; default none. Without a handler
     * approval is a record: the call writes an {@link ApprovalRequest} and ends {@code
     * tool_approval_pending} with its request left open, and an {@link ApprovalDecision} written
     * later (by the host or an {@link #approvers approver}) lets it run or denies it, in whichever
     * process runs the request next. An agent's turn suspends meanwhile, holding no thread.
     */
    public Builder approvalHandler(@Nullable ApprovalHandler handler) {
      this.approval = handler;
      return this;
    }

    /**
     * How long an {@link ApprovalRequest} waits for a decision before it counts as a denial
     * ({@code tool_denied}); default 24 h. Must be positive.
     */
    public Builder approvalExpiry(Duration expiry) {
      if (expiry.isNegative() || expiry.isZero()) {
        throw new IllegalArgumentException("approvalExpiry must be positive: " + expiry);
      }
      this.approvalExpiry = expiry;
      return this;
    }

    /**
     * Principals besides the host whose {@link ApprovalDecision}s count, such as {@code
     * Principal.ofWriter("user:alice")}; default none. A decision written by anyone else (a tool, an
     * agent, another user) is ignored and logged.
     */
    public Builder approvers(dev.rcrt.core.Principal... principals) {
      for (dev.rcrt.core.Principal p : principals) {
        approvers.add(Objects.requireNonNull(p, "principal"));
      }
      return this;
    }

    /** Which tools need approval besides those marked {@code requires_approval}; default none. */
    public Builder approvalPolicy(Predicate<ToolDefinition> policy) {
      this.approvalPolicy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * Adds an application interceptor: after resolve, before trust and approval, so it sees every
     * resolved call (and may answer it itself). Interceptors run in the order added.
     */
    public Builder addInterceptor(ToolInterceptor interceptor) {
      application.add(Objects.requireNonNull(interceptor, "interceptor"));
      return this;
    }

    /**
     * Adds a runtime interceptor: right around the tool's code, after validation and inside its
     * deadline, so it sees only calls that run.
     */
    public Builder addRuntimeInterceptor(ToolInterceptor interceptor) {
      runtime.add(Objects.requireNonNull(interceptor, "interceptor"));
      return this;
    }

    /** Adds a listener told of every call's events. */
    public Builder eventListener(ToolEventListener listener) {
      listeners.add(Objects.requireNonNull(listener, "listener"));
      return this;
    }

    /**
     * The most bytes a tool's output may have as compact JSON, for tools whose breadcrumb sets no
     * {@code limits.max_output_bytes}; default 8 MiB. A larger output fails with {@code
     * tool_too_large} instead of being recorded.
     */
    public Builder maxOutputBytes(long bytes) {
      if (bytes < 1) {
        throw new IllegalArgumentException("maxOutputBytes < 1: " + bytes);
      }
      this.maxOutputBytes = bytes;
      return this;
    }

    /**
     * The time limit for tools whose breadcrumb names none ({@code capabilities.timeout} or
     * {@code limits.timeout_ms}); default 30 s. Must be positive.
     */
    public Builder defaultTimeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("timeout must be positive: " + timeout);
      }
      this.defaultTimeout = timeout;
      return this;
    }

    /**
     * The time that call deadlines, Java tools' timeouts, call durations and HTTP tools' retry
     * back-offs are measured on; default {@link TimeSource#system()}. Tests pass a {@code
     * dev.rcrt.testing.TestClock} to make a tool time out without waiting. JavaScript workers and
     * containers are outside processes and keep real time (their limit is the time left on this
     * source when the call starts).
     */
    public Builder timeSource(TimeSource time) {
      this.time = Objects.requireNonNull(time, "time");
      return this;
    }

    /**
     * The client HTTP tools and JavaScript {@code fetch} send with; its proxy, TLS context,
     * connect timeout and HTTP version apply to them. Default: one client shared by every runner
     * and model client in the JVM (connect timeout 10 s), so building many runners never builds
     * many clients. The runner does not close it.
     *
     * @throws IllegalArgumentException if the client follows redirects: a redirect would reach an
     *     address the trust policy never checked
     */
    public Builder httpClient(HttpClient http) {
      if (http.followRedirects() != HttpClient.Redirect.NEVER) {
        throw new IllegalArgumentException(
            "the tools' HttpClient must not follow redirects (it has " + http.followRedirects()
                + "): a redirect would reach an address the trust policy never checked; build it with"
                + " followRedirects(HttpClient.Redirect.NEVER)");
      }
      this.http = http;
      return this;
    }

    /**
     * How long a {@link #listen() listening} runner's claim on a request lasts without renewal:
     * the runner renews it every third of this while the tool runs, and another runner takes a
     * request over this long after its runner died. Default 15 s, at least 30 ms. Under 300 ms,
     * run on a collector that does not stop the process for long (ZGC, {@code -XX:+UseZGC}): no
     * renewal runs during a pause, and G1's lasted 60 to 140 ms on a loaded 2-core machine.
     */
    public Builder claimLease(Duration lease) {
      if (lease.isNegative() || lease.compareTo(Duration.ofMillis(30)) < 0) {
        throw new IllegalArgumentException("claimLease must be at least 30 ms: " + lease);
      }
      this.claimLease = lease;
      return this;
    }

    /**
     * How many requests a {@link #listen() listening} runner runs at once, on daemon threads the
     * runner owns and stops on {@link ToolRunner#close()}; default 16. Requests beyond it wait in
     * the runner's queue (they are claimed only when a thread takes them, so other runners of a
     * fleet may take them first).
     *
     * @throws IllegalArgumentException if {@code calls < 1}
     */
    public Builder listenerConcurrency(int calls) {
      if (calls < 1) {
        throw new IllegalArgumentException("listenerConcurrency < 1: " + calls);
      }
      this.listenerConcurrency = calls;
      return this;
    }

    /**
     * How many times a request may be claimed by {@link #listen() listening} runners before it is
     * treated as a poison request; default 3. Each claim that ends without a response (the runner
     * died, hung past its lease, or could not record) counts; the runner that would claim it once
     * more records an error response ({@code tool_failed}, naming the count) instead of running the
     * tool, so a request that kills its runner does not travel the fleet for ever.
     *
     * @throws IllegalArgumentException if {@code attempts < 1}
     */
    public Builder maxAttempts(int attempts) {
      if (attempts < 1) {
        throw new IllegalArgumentException("maxAttempts < 1: " + attempts);
      }
      this.maxAttempts = attempts;
      return this;
    }

    /** The runner; the builder may be reused, later changes do not affect it. */
    public ToolRunner build() {
      for (dev.rcrt.core.BreadcrumbCreate record : publish) {
        dev.rcrt.core.BreadcrumbFiles.upsert(store, record);
      }
      return new ToolRunner(this);
    }
  }
}
