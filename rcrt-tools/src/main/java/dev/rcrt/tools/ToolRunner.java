package dev.rcrt.tools;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbEvent;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.ContextMatch;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.core.ValidationException;
import dev.rcrt.tools.internal.CallScope;
import dev.rcrt.tools.internal.loader.BuiltinLoader;
import dev.rcrt.tools.internal.loader.ImplementationLoader;
import dev.rcrt.tools.internal.loader.ModuleLoader;
import dev.rcrt.tools.internal.loader.ToolLoader;
import dev.rcrt.tools.internal.loader.container.ContainerLoader;
import dev.rcrt.tools.internal.loader.http.HttpLoader;
import dev.rcrt.tools.internal.loader.js.JsLoader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs tools: turns a {@code tool.request.v1} breadcrumb into a {@code tool.response.v1}
 * breadcrumb, along one path for every caller (agents, the CLI, tests):
 *
 * <ol>
 *   <li><b>resolve</b> the tool by name from the store ({@link ToolDiscovery});
 *   <li><b>load</b> its code by {@code implementation.type}: {@code builtin} (a {@link
 *       ToolHandler}), {@code module} (a {@link ToolModule} on the classpath or in a jar), {@code
 *       http} (an endpoint), {@code breadcrumb} (JavaScript or TypeScript in GraalJS), {@code
 *       container} (Docker). Loading is lazy and cached per breadcrumb version;
 *   <li><b>validate the input</b> against its input schema (everit-json-schema);
 *   <li><b>run</b> it within its time limit, with its configuration and declared secrets resolved
 *       for this call only;
 *   <li><b>validate the output</b> against its output schema;
 *   <li><b>record</b> the {@code tool.response.v1}, with every secret value of the call removed.
 * </ol>
 *
 * <p>Nothing a tool does escapes the runner: an unknown tool, a schema violation, a thrown handler,
 * a failing endpoint or a timeout becomes a response with {@code status: "error"}, an {@code
 * error} that names the JSON pointer or the cause, and an {@code error_code} (see {@link
 * ToolException}). Only a store failure while writing the response propagates.
 *
 * <p>The runner watches the store: a tool breadcrumb that is updated runs its new version on the
 * next call, and one that is deleted is unloaded (its JavaScript contexts and containers
 * released).
 *
 * <p>Thread-safe: any number of requests may run at once. {@link #close()} stops the watch and the
 * runner threads, and unloads every tool (removing its containers).
 */
public final class ToolRunner implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ToolRunner.class);
  private static final String WRITER = "tools-runner";
  /** Loaders that enforce the deadline themselves get this long to report it before the runner does. */
  private static final Duration GRACE = Duration.ofMillis(250);

  private final BreadcrumbStore store;
  private final ToolDiscovery discovery;
  private final ToolLoader loader;
  private final Duration defaultTimeout;
  private final SecretResolver secrets;
  private final ExecutorService threads;
  private final List<Subscription> watches = new ArrayList<>();

  private ToolRunner(Builder b) {
    this.store = b.store;
    this.discovery = new ToolDiscovery(b.store);
    this.defaultTimeout = b.defaultTimeout;
    this.secrets = b.secrets;
    Map<String, ToolModule> modules = new LinkedHashMap<>();
    Map<String, ToolHandler> builtin = new LinkedHashMap<>(BuiltinTools.handlers());
    for (ToolModule m : ServiceLoader.load(ToolModule.class, ToolRunner.class.getClassLoader())) {
      modules.put(m.name(), m);
      builtin.putAll(m.handlers());
    }
    b.modules.forEach(m -> modules.put(m.name(), m));
    builtin.putAll(b.handlers);
    Map<String, ImplementationLoader> byType = new LinkedHashMap<>();
    byType.put("builtin", new BuiltinLoader(builtin));
    byType.put("module", new ModuleLoader(modules));
    byType.put("http", new HttpLoader());
    byType.put("breadcrumb", new JsLoader(b.store, b.defaultTimeout));
    byType.put("container", new ContainerLoader());
    this.loader = new ToolLoader(byType);
    AtomicInteger n = new AtomicInteger();
    this.threads =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "rcrt-tool-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    for (String schema : ToolDefinition.TOOL_SCHEMAS) {
      watches.add(store.subscribe(Selector.schema(schema), this::onToolChange));
    }
  }

  /** A builder for a runner over {@code store}, with the {@link BuiltinTools} registered. */
  public static Builder builder(BreadcrumbStore store) {
    return new Builder(store);
  }

  /** The store this runner reads tools from and writes responses to. */
  public BreadcrumbStore store() {
    return store;
  }

  /** The discovery this runner resolves tools with; share it to avoid parsing tools twice. */
  public ToolDiscovery discovery() {
    return discovery;
  }

  /**
   * Writes {@code request} as a {@code tool.request.v1} breadcrumb, runs it, and returns the
   * {@code tool.response.v1} breadcrumb. The request is tagged {@value #DIRECT_TAG} so that
   * runners {@link #listen() listening} on the same store leave it alone.
   *
   * @param extraTags added to both breadcrumbs, for example {@code session:<id>}
   */
  public Breadcrumb submit(ToolRequest request, List<String> extraTags) {
    List<String> tags = new ArrayList<>(extraTags);
    tags.add(DIRECT_TAG);
    return run(store.create(request.toBreadcrumb(tags)));
  }

  /** The tag of requests a runner runs itself ({@link #submit}); listeners skip them. */
  public static final String DIRECT_TAG = "dispatch:direct";

  /**
   * Runs a stored {@code tool.request.v1} breadcrumb and writes its {@code tool.response.v1}.
   * The response carries the request's {@code session:} tags.
   *
   * @return the response breadcrumb; its status is {@code error} for every tool-side failure
   * @throws IllegalArgumentException if the breadcrumb is not a {@code tool.request.v1}
   */
  public Breadcrumb run(Breadcrumb requestBreadcrumb) {
    if (!ToolRequest.SCHEMA.equals(requestBreadcrumb.schemaName())) {
      throw new IllegalArgumentException(
          "not a " + ToolRequest.SCHEMA + ": " + requestBreadcrumb.schemaName());
    }
    List<String> sessionTags =
        requestBreadcrumb.tags().stream().filter(t -> t.startsWith("session:")).toList();
    ToolResponse response;
    try {
      response = execute(ToolRequest.fromBreadcrumb(requestBreadcrumb));
    } catch (ValidationException malformed) {
      String tool = Objects.requireNonNullElse(requestBreadcrumb.contextText("tool"), "(none)");
      response =
          ToolResponse.failure(
              requestBreadcrumb.id(),
              tool,
              new ToolException("tool_input_invalid", malformed.getMessage()),
              0);
    }
    return store.create(response.toBreadcrumb(sessionTags, WRITER));
  }

  /**
   * Event-driven mode: runs every {@code tool.request.v1} created in the store from now on, on the
   * runner's threads, and writes its {@code tool.response.v1}. Agents (in this or another process
   * sharing the store) write requests and wait for the responses. Requests tagged {@value
   * #DIRECT_TAG} are being run by the runner that wrote them and are skipped.
   *
   * @return closes the subscription; requests already started finish
   */
  public Subscription listen() {
    return store.subscribe(
        Selector.schema(ToolRequest.SCHEMA),
        event -> {
          if (event.type() == BreadcrumbEvent.Type.CREATED && !event.breadcrumb().hasTag(DIRECT_TAG)) {
            threads.execute(() -> {
              try {
                run(event.breadcrumb());
              } catch (RuntimeException e) {
                LOG.warn("tool request '{}' could not be answered: {}", event.breadcrumb().id(), e.getMessage());
              }
            });
          }
        });
  }

  /** Resolve → load → validate input → run → validate output; never throws for tool failures. */
  private ToolResponse execute(ToolRequest request) {
    long start = System.nanoTime();
    CallScope scope = null;
    try {
      ToolLoader.LoadedTool tool = loader.load(resolve(request.tool()));
      ToolDefinition def = tool.definition();
      check(def, "input", tool.inputViolations(request.input()), "tool_input_invalid");
      scope = new CallScope(def.name(), def.timeout() != null ? def.timeout() : defaultTimeout, secrets);
      ToolContext context =
          new ToolContext(
              request.requestId(), def.name(), request.requestedBy(), store,
              scope.resolveReferences(config(def.name())), declaredSecrets(def, scope));
      JsonNode output = scope.scrub(invoke(tool, request.input(), context, scope));
      check(def, "output", tool.outputViolations(output), "tool_output_invalid");
      return ToolResponse.success(request.requestId(), def.name(), output, elapsedMs(start));
    } catch (ToolException e) {
      ToolException safe = scope == null ? e : new ToolException(e.code(), scope.scrub(e.getMessage()));
      LOG.debug("tool '{}' request {} failed: {}", request.tool(), request.requestId(), safe.getMessage());
      return ToolResponse.failure(request.requestId(), request.tool(), safe, elapsedMs(start));
    }
  }

  private ToolDefinition resolve(String name) {
    try {
      return discovery
          .find(name)
          .orElseThrow(
              () ->
                  new ToolException(
                      "tool_not_found",
                      "no tool named '" + name + "'; available tools: " + availableNames()));
    } catch (ValidationException e) {
      throw new ToolException("tool_definition_invalid", e.getMessage());
    }
  }

  private String availableNames() {
    return discovery.discover().items().stream().map(ToolDefinition::name).collect(Collectors.joining(", "));
  }

  /**
   * Runs the invoker within the deadline: on this thread when it enforces the deadline itself,
   * else on a runner thread that is abandoned (and interrupted) when the limit passes.
   */
  private JsonNode invoke(ToolLoader.LoadedTool tool, JsonNode input, ToolContext context, CallScope scope) {
    String name = tool.definition().name();
    Duration limit = scope.limit();
    if (tool.invoker().enforcesDeadline()) {
      try {
        return nonNull(name, tool.invoker().invoke(input, context, scope));
      } catch (ToolException e) {
        throw e;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ToolException("tool_failed", "tool '" + name + "' was interrupted");
      } catch (Exception e) {
        throw failed(name, e);
      }
    }
    Future<JsonNode> running = threads.submit(() -> tool.invoker().invoke(input, context, scope));
    try {
      return nonNull(name, running.get(limit.plus(GRACE).toMillis(), TimeUnit.MILLISECONDS));
    } catch (TimeoutException e) {
      running.cancel(true);
      throw new ToolException(
          "tool_timeout", "tool '" + name + "' timed out after " + limit.toMillis() + " ms");
    } catch (InterruptedException e) {
      running.cancel(true);
      Thread.currentThread().interrupt();
      throw new ToolException("tool_failed", "tool '" + name + "' was interrupted");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof ToolException te) {
        throw te;
      }
      throw failed(name, cause);
    }
  }

  private static JsonNode nonNull(String name, @org.jspecify.annotations.Nullable JsonNode output) {
    if (output == null) {
      throw new ToolException("tool_output_invalid", "tool '" + name + "' returned no output");
    }
    return output;
  }

  private static ToolException failed(String name, Throwable cause) {
    return new ToolException(
        "tool_failed",
        "tool '" + name + "' failed: " + cause.getClass().getSimpleName()
            + (cause.getMessage() == null ? "" : ": " + cause.getMessage()),
        cause);
  }

  /** The tool's {@code tool.config.v1} {@code config} object (newest), or an empty object. */
  private JsonNode config(String tool) {
    for (String field : List.of("$.tool", "$.tool_name")) {
      List<Breadcrumb> hit =
          store.search(Selector.schema("tool.config.v1").withMatch(ContextMatch.eq(field, tool)), 1, 0);
      if (!hit.isEmpty() && hit.get(0).context().path("config").isObject()) {
        return hit.get(0).context().get("config");
      }
    }
    return RcrtJson.object();
  }

  /** The values of the secrets listed in {@code required_secrets}, by bare name. */
  private static Map<String, String> declaredSecrets(ToolDefinition def, CallScope scope) {
    Map<String, String> out = new LinkedHashMap<>();
    for (JsonNode ref : def.context().path("required_secrets")) {
      String name = ref.asText();
      String bare = CallScope.isReference(name) ? name.substring("secret:".length()) : name;
      out.put(bare, scope.secret(bare));
    }
    return out;
  }

  private void onToolChange(BreadcrumbEvent event) {
    if (event.type() != BreadcrumbEvent.Type.CREATED) {
      loader.unload(event.breadcrumb().id());
    }
  }

  private static void check(ToolDefinition def, String which, List<String> violations, String code) {
    if (!violations.isEmpty()) {
      String listed =
          violations.stream()
              .map(v -> v.startsWith(": ") ? v.substring(2) : v)
              .collect(Collectors.joining("; "));
      String sep = violations.get(0).startsWith(": ") ? ": " : " ";
      throw new ToolException(code, "tool '" + def.name() + "' " + which + sep + listed);
    }
  }

  private static long elapsedMs(long startNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
  }

  @Override
  public void close() {
    watches.forEach(Subscription::close);
    threads.shutdownNow();
    loader.close();
  }

  /** Builder for {@link ToolRunner}. Not thread-safe. */
  public static final class Builder {
    private final BreadcrumbStore store;
    private final Map<String, ToolHandler> handlers = new LinkedHashMap<>();
    private final List<ToolModule> modules = new ArrayList<>();
    private Duration defaultTimeout = Duration.ofSeconds(30);
    private SecretResolver secrets = SecretResolver.environment();

    private Builder(BreadcrumbStore store) {
      this.store = Objects.requireNonNull(store, "store");
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

    public ToolRunner build() {
      return new ToolRunner(this);
    }
  }

}
