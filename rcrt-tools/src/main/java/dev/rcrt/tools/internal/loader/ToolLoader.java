package dev.rcrt.tools.internal.loader;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.JsonSchema;
import dev.rcrt.core.ValidationException;
import dev.rcrt.core.spi.Throwables;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolHandler;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Dispatches on {@code implementation.type} and keeps each loaded tool until its breadcrumb moves
 * to a new version. Loading compiles the input and output schemas once.
 *
 * <p>Thread-safe.
 */
public final class ToolLoader implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ToolLoader.class);

  private final Map<String, ImplementationLoader> byType;
  private final ConcurrentHashMap<String, Loading> loaded = new ConcurrentHashMap<>();
  private final java.util.function.Consumer<String> codeLoaded;

  /**
   * @param codeLoaded told the id of the breadcrumb holding a tool's code ({@code
   *     implementation.breadcrumb_id}) each time such a tool is loaded, so that its owner can watch
   *     that record and {@link #unloadReferencing} the tool when it changes
   */
  public ToolLoader(Map<String, ImplementationLoader> byType, java.util.function.Consumer<String> codeLoaded) {
    this.byType = Map.copyOf(byType);
    this.codeLoaded = codeLoaded;
  }

  /**
   * A tool ready to validate and invoke, for one version of one tool breadcrumb. Its invoker is
   * closed only after the last call using it {@linkplain #release() released} it and the loader let
   * go of it (an update, a delete or {@link ToolLoader#close()}), so a call in flight never runs on
   * a closed invoker.
   */
  public static final class LoadedTool {
    private final ToolDefinition definition;
    private final JsonSchema input;
    private final @Nullable JsonSchema output;
    private final Invoker invoker;
    /** The loader's own hold (1 while cached) plus one per call in flight; 0 means closed. */
    private final AtomicInteger holds = new AtomicInteger(1);

    LoadedTool(ToolDefinition definition, JsonSchema input, @Nullable JsonSchema output, Invoker invoker) {
      this.definition = definition;
      this.input = input;
      this.output = output;
      this.invoker = invoker;
    }

    /** The definition it was loaded from. */
    public ToolDefinition definition() {
      return definition;
    }

    /** The code; valid until this call {@linkplain #release() releases} it. */
    public Invoker invoker() {
      return invoker;
    }

    /** Violations of the input schema, {@code "<pointer>: <message>"}; empty when valid. */
    public List<String> inputViolations(JsonNode value) {
      return input.violations(value);
    }

    /** Violations of the output schema; empty when valid or when there is no output schema. */
    public List<String> outputViolations(JsonNode value) {
      return output == null ? List.of() : output.violations(value);
    }

    /** Takes a hold for one call; false once it is closed (or closing with no call left). */
    boolean retain() {
      for (int n = holds.get(); n > 0; n = holds.get()) {
        if (holds.compareAndSet(n, n + 1)) {
          return true;
        }
      }
      return false;
    }

    /** Gives one hold back; the last one closes the invoker. Every {@link ToolLoader#load} is paired with one. */
    public void release() {
      if (holds.decrementAndGet() == 0) {
        invoker.close();
      }
    }
  }

  /**
   * The loaded tool for this definition, loading it on first use or when its breadcrumb version
   * changed (the old version is closed once its calls in flight end). Loading is atomic per
   * breadcrumb version: concurrent first calls wait for one load and share it; a failed load is not
   * kept, so the next call tries again, and whatever the load threw, an {@link Error} included,
   * fails every call that waited for it. The caller {@linkplain LoadedTool#release() releases} what
   * it got when the call ends.
   *
   * @param handler code supplied by the caller for this call (an agent offered as a tool): its
   *     schemas are compiled and nothing is cached; null to load the definition's implementation
   * @throws ToolException {@code tool_unsupported} for an unknown type, {@code
   *     tool_definition_invalid} for a bad schema, {@code tool_failed} when loading threw something
   *     other than a {@link RuntimeException}, or whatever the type's loader reports
   */
  public LoadedTool load(ToolDefinition definition, @Nullable ToolHandler handler) {
    if (handler != null) {
      JsonSchema in = compile(definition, "input_schema", definition.inputSchema());
      JsonSchema out =
          definition.outputSchema() == null ? null : compile(definition, "output_schema", definition.outputSchema());
      return new LoadedTool(definition, in, out, BuiltinLoader.handlerInvoker(handler)); // its one hold is the call's
    }
    while (true) {
      LoadedTool tool = loadShared(definition);
      if (tool.retain()) {
        return tool;
      }
      // closed between the load and the hold: unloaded meanwhile (a replaced version fails as tool_changed), so load again
    }
  }

  private LoadedTool loadShared(ToolDefinition definition) {
    String id = definition.sourceId();
    long version = definition.sourceVersion();
    Loading ready = loaded.get(id);
    if (ready != null && ready.version == version && ready.result.isDone() && !ready.result.isCompletedExceptionally()) {
      return ready.result.join();
    }
    Loading mine = new Loading(version);
    Loading[] replaced = new Loading[1];
    Loading current =
        loaded.compute(
            id,
            (k, existing) -> {
              if (existing != null && existing.version >= version) {
                return existing;
              }
              replaced[0] = existing;
              return mine;
            });
    if (replaced[0] != null) {
      replaced[0].releaseWhenLoaded();
    }
    if (current.version != version) {
      throw new ToolException(
          ToolErrorCode.TOOL_CHANGED,
          "tool '" + definition.name() + "' changed while it was being called (breadcrumb '" + id + "' is past version "
              + version + "); it was not run. Ask again to use the current version");
    }
    if (current == mine) {
      try {
        mine.result.complete(loadNew(definition));
      } catch (Throwable e) {
        loaded.remove(id, mine);
        RuntimeException failure = e instanceof RuntimeException r ? r : loadFailed(definition, e);
        mine.result.completeExceptionally(failure);
        Throwables.rethrowIfFatal(e);
        throw failure;
      }
    }
    try {
      return current.result.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      throw e;
    }
  }

  /** An {@link Error} (or checked throwable) out of a runtime's load, as the call's failure. */
  private static ToolException loadFailed(ToolDefinition definition, Throwable e) {
    return new ToolException(
        ToolErrorCode.TOOL_FAILED,
        "tool '" + definition.name() + "' could not be loaded (breadcrumb '" + definition.sourceId() + "' version "
            + definition.sourceVersion() + "): " + Throwables.describe(e)
            + "; fix its implementation and update the breadcrumb",
        e);
  }

  /** One version of one tool, loaded once by the first caller while the others wait. */
  private static final class Loading {
    final long version;
    final CompletableFuture<LoadedTool> result = new CompletableFuture<>();

    Loading(long version) {
      this.version = version;
    }

    /** Lets go of the loader's hold: closed now if no call uses it, else when the last one ends. */
    void releaseWhenLoaded() {
      result.thenAccept(LoadedTool::release);
    }
  }

  /** Unloads the tool that came from breadcrumb {@code sourceId}, if loaded. */
  public void unload(String sourceId) {
    Loading removed = loaded.remove(sourceId);
    if (removed != null) {
      removed.releaseWhenLoaded();
    }
  }

  /**
   * Unloads every tool whose code lives in breadcrumb {@code codeId} ({@code
   * implementation.breadcrumb_id}), so the next call reads the changed code; calls in flight finish
   * on the code they started with.
   */
  public void unloadReferencing(String codeId) {
    loaded.forEach(
        (sourceId, loading) -> {
          LoadedTool tool = loading.result.getNow(null);
          if (tool != null && codeId.equals(codeIdOf(tool.definition()))) {
            unload(sourceId);
          }
        });
  }

  /**
   * What loading {@code definition} would refuse in the definition itself, without loading it:
   * the definition's own problems (schemas, examples), an implementation type this runner cannot
   * run, and its type's {@link ImplementationLoader#problems}.
   */
  public java.util.List<String> problems(ToolDefinition definition) {
    java.util.List<String> found = new java.util.ArrayList<>(definition.problems());
    try {
      found.addAll(loaderFor(definition).problems(definition));
    } catch (ToolException e) {
      found.add(e.getMessage());
    }
    return found;
  }

  /**
   * Whether this runner can run {@code definition} as far as a cheap look tells: a loader serves its
   * implementation type and has what it names ({@link ImplementationLoader#serves}). No parsing.
   */
  public boolean serves(ToolDefinition definition) {
    ImplementationLoader loader = byType.get(definition.implementation().type());
    return loader != null && loader.serves(definition);
  }

  /** The artifacts that bring the runtimes {@code rcrt-tools} leaves out, by implementation type. */
  private static final Map<String, String> ARTIFACTS =
      Map.of("breadcrumb", "rcrt-tools-js", "container", "rcrt-tools-docker", "mcp", "rcrt-mcp");

  private ImplementationLoader loaderFor(ToolDefinition definition) {
    String type = definition.implementation().type();
    ImplementationLoader loader = byType.get(type);
    if (loader == null) {
      String artifact = ARTIFACTS.get(type);
      throw new ToolException(
          ToolErrorCode.TOOL_UNSUPPORTED,
          "tool '" + definition.name() + "' has implementation type '" + type + "', which this runner cannot run; "
              + (artifact == null
                  ? "no ToolRuntime on the classpath runs it"
                  : "add the dependency dev.rcrt:" + artifact + " (its runtime is found on the classpath)")
              + "; supported: " + new java.util.TreeSet<>(byType.keySet()));
    }
    return loader;
  }

  private LoadedTool loadNew(ToolDefinition definition) {
    ImplementationLoader loader = loaderFor(definition);
    JsonSchema in = compile(definition, "input_schema", definition.inputSchema());
    JsonSchema out =
        definition.outputSchema() == null ? null : compile(definition, "output_schema", definition.outputSchema());
    definition.problems().forEach(p -> LOG.warn("{}", p));
    LoadedTool tool = new LoadedTool(definition, in, out, loader.load(definition));
    String codeId = codeIdOf(definition);
    if (codeId != null) {
      codeLoaded.accept(codeId);
    }
    return tool;
  }

  /** The breadcrumb a tool's code lives in ({@code implementation.breadcrumb_id}), or null when it is in the tool record. */
  private static @Nullable String codeIdOf(ToolDefinition definition) {
    return definition.implementation().spec().path("breadcrumb_id").asText(null);
  }

  private static JsonSchema compile(ToolDefinition definition, String field, JsonNode schema) {
    try {
      return JsonSchema.compile(schema);
    } catch (ValidationException e) {
      throw new ToolException(
          ToolErrorCode.TOOL_DEFINITION_INVALID,
          "tool '" + definition.name() + "' " + field + " (breadcrumb '" + definition.sourceId()
              + "'): " + e.getMessage());
    }
  }

  @Override
  public void close() {
    loaded.values().forEach(Loading::releaseWhenLoaded);
    loaded.clear();
    for (ImplementationLoader l : byType.values()) {
      if (l instanceof AutoCloseable closeable) {
        try {
          closeable.close();
        } catch (Throwable e) {
          Throwables.rethrowIfFatal(e);
          LOG.debug("closing loader failed", e);
        }
      }
    }
  }
}
