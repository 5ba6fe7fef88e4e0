package dev.rcrt.tools;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.ContextMatch;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.ValidationException;
import dev.rcrt.tools.internal.loader.BuiltinLoader;
import dev.rcrt.tools.internal.loader.ImplementationLoader;
import dev.rcrt.tools.internal.loader.ToolLoader;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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
 *   <li><b>load</b> its code by implementation type (cached per breadcrumb version);
 *   <li><b>validate the input</b> against its input schema (everit-json-schema);
 *   <li><b>run</b> it on a runner thread, within its time limit;
 *   <li><b>validate the output</b> against its output schema;
 *   <li><b>record</b> the {@code tool.response.v1}.
 * </ol>
 *
 * <p>Nothing a tool does escapes the runner: an unknown tool, a schema violation, a thrown handler
 * or a timeout becomes a response with {@code status: "error"}, an {@code error} that names the
 * JSON pointer or the cause, and an {@code error_code} (see {@link ToolException}). Only a store
 * failure while writing the response propagates.
 *
 * <p>Thread-safe: any number of requests may run at once. {@link #close()} stops the runner
 * threads and unloads every tool.
 */
public final class ToolRunner implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ToolRunner.class);
  private static final String WRITER = "tools-runner";

  private final BreadcrumbStore store;
  private final ToolDiscovery discovery;
  private final ToolLoader loader;
  private final Duration defaultTimeout;
  private final ExecutorService threads;

  private ToolRunner(Builder b) {
    this.store = b.store;
    this.discovery = new ToolDiscovery(b.store);
    Map<String, ImplementationLoader> byType = Map.of("builtin", new BuiltinLoader(b.handlers));
    this.loader = new ToolLoader(byType);
    this.defaultTimeout = b.defaultTimeout;
    AtomicInteger n = new AtomicInteger();
    this.threads =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "rcrt-tool-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
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
   * {@code tool.response.v1} breadcrumb.
   *
   * @param extraTags added to both breadcrumbs, for example {@code session:<id>}
   */
  public Breadcrumb submit(ToolRequest request, List<String> extraTags) {
    return run(store.create(request.toBreadcrumb(extraTags)));
  }

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

  /** Resolve → load → validate input → run → validate output; never throws for tool failures. */
  private ToolResponse execute(ToolRequest request) {
    long start = System.nanoTime();
    try {
      ToolLoader.LoadedTool tool = loader.load(resolve(request.tool()));
      ToolDefinition def = tool.definition();
      check(def, "input", tool.inputViolations(request.input()), "tool_input_invalid");
      ToolContext context =
          new ToolContext(request.requestId(), def.name(), request.requestedBy(), store, config(def.name()));
      JsonNode output = invoke(tool, request.input(), context);
      check(def, "output", tool.outputViolations(output), "tool_output_invalid");
      return ToolResponse.success(request.requestId(), def.name(), output, elapsedMs(start));
    } catch (ToolException e) {
      LOG.debug("tool '{}' request {} failed: {}", request.tool(), request.requestId(), e.getMessage());
      return ToolResponse.failure(request.requestId(), request.tool(), e, elapsedMs(start));
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

  private JsonNode invoke(ToolLoader.LoadedTool tool, JsonNode input, ToolContext context) {
    String name = tool.definition().name();
    Duration limit = tool.definition().timeout() != null ? tool.definition().timeout() : defaultTimeout;
    Future<JsonNode> running = threads.submit(() -> tool.invoker().invoke(input, context));
    try {
      JsonNode output = running.get(limit.toMillis(), TimeUnit.MILLISECONDS);
      if (output == null) {
        throw new ToolException("tool_output_invalid", "tool '" + name + "' returned no output");
      }
      return output;
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
      throw new ToolException(
          "tool_failed",
          "tool '" + name + "' failed: " + cause.getClass().getSimpleName()
              + (cause.getMessage() == null ? "" : ": " + cause.getMessage()),
          cause);
    }
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
    threads.shutdownNow();
    loader.close();
  }

  /** Builder for {@link ToolRunner}. Not thread-safe. */
  public static final class Builder {
    private final BreadcrumbStore store;
    private final Map<String, ToolHandler> handlers = new LinkedHashMap<>(BuiltinTools.handlers());
    private Duration defaultTimeout = Duration.ofSeconds(30);

    private Builder(BreadcrumbStore store) {
      this.store = Objects.requireNonNull(store, "store");
    }

    /**
     * Registers the code behind builtin tool {@code name} (or behind an implementation whose
     * {@code export} is {@code name}), replacing a bundled handler of the same name.
     */
    public Builder handler(String name, ToolHandler handler) {
      handlers.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(handler, "handler"));
      return this;
    }

    /**
     * The time limit for tools whose breadcrumb names none; default 30 s. Must be positive.
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
