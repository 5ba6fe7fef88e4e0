package dev.rcrt.tools.internal.loader;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.ValidationException;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolHandler;
import dev.rcrt.core.internal.schema.CompiledSchema;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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

  public ToolLoader(Map<String, ImplementationLoader> byType) {
    this.byType = Map.copyOf(byType);
  }

  /** A tool ready to validate and invoke, for one version of one tool breadcrumb. */
  public record LoadedTool(
      ToolDefinition definition,
      CompiledSchema input,
      @Nullable CompiledSchema output,
      Invoker invoker) {

    /** Violations of the input schema, {@code "<pointer>: <message>"}; empty when valid. */
    public List<String> inputViolations(JsonNode value) {
      return input.violations(value);
    }

    /** Violations of the output schema; empty when valid or when there is no output schema. */
    public List<String> outputViolations(JsonNode value) {
      return output == null ? List.of() : output.violations(value);
    }
  }

  /**
   * The loaded tool for this definition, loading it on first use or when its breadcrumb version
   * changed (the old version is closed). Loading is atomic per breadcrumb version: concurrent first
   * calls wait for one load and share it; a failed load is not kept, so the next call tries again.
   *
   * @param handler code supplied by the caller for this call (an agent offered as a tool): its
   *     schemas are compiled and nothing is cached; null to load the definition's implementation
   * @throws ToolException {@code tool_unsupported} for an unknown type, {@code
   *     tool_definition_invalid} for a bad schema, or whatever the type's loader reports
   */
  public LoadedTool load(ToolDefinition definition, @Nullable ToolHandler handler) {
    if (handler != null) {
      CompiledSchema in = compile(definition, "input_schema", definition.inputSchema());
      CompiledSchema out =
          definition.outputSchema() == null ? null : compile(definition, "output_schema", definition.outputSchema());
      return new LoadedTool(definition, in, out, BuiltinLoader.handlerInvoker(handler));
    }
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
      replaced[0].closeWhenLoaded();
    }
    if (current.version != version) {
      throw new ToolException(
          "tool_changed",
          "tool '" + definition.name() + "' changed while it was being called (breadcrumb '" + id + "' is past version "
              + version + "); it was not run. Ask again to use the current version");
    }
    if (current == mine) {
      try {
        mine.result.complete(loadNew(definition));
      } catch (RuntimeException e) {
        loaded.remove(id, mine);
        mine.result.completeExceptionally(e);
        throw e;
      }
    }
    try {
      return current.result.join();
    } catch (java.util.concurrent.CompletionException e) {
      if (current != mine && e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      throw e;
    }
  }

  /** One version of one tool, loaded once by the first caller while the others wait. */
  private static final class Loading {
    final long version;
    final java.util.concurrent.CompletableFuture<LoadedTool> result = new java.util.concurrent.CompletableFuture<>();

    Loading(long version) {
      this.version = version;
    }

    void closeWhenLoaded() {
      result.thenAccept(t -> t.invoker().close());
    }
  }

  /** Unloads the tool that came from breadcrumb {@code sourceId}, if loaded. */
  public void unload(String sourceId) {
    Loading removed = loaded.remove(sourceId);
    if (removed != null) {
      removed.closeWhenLoaded();
    }
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

  /** The artifacts that bring the runtimes {@code rcrt-tools} leaves out, by implementation type. */
  private static final Map<String, String> ARTIFACTS =
      Map.of("breadcrumb", "rcrt-tools-js", "container", "rcrt-tools-docker", "mcp", "rcrt-mcp");

  private ImplementationLoader loaderFor(ToolDefinition definition) {
    String type = definition.implementation().type();
    ImplementationLoader loader = byType.get(type);
    if (loader == null) {
      String artifact = ARTIFACTS.get(type);
      throw new ToolException(
          "tool_unsupported",
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
    CompiledSchema in = compile(definition, "input_schema", definition.inputSchema());
    CompiledSchema out =
        definition.outputSchema() == null ? null : compile(definition, "output_schema", definition.outputSchema());
    definition.problems().forEach(p -> LOG.warn("{}", p));
    return new LoadedTool(definition, in, out, loader.load(definition));
  }

  private static CompiledSchema compile(ToolDefinition definition, String field, JsonNode schema) {
    try {
      return CompiledSchema.compile(schema);
    } catch (ValidationException e) {
      throw new ToolException(
          "tool_definition_invalid",
          "tool '" + definition.name() + "' " + field + " (breadcrumb '" + definition.sourceId()
              + "'): " + e.getMessage());
    }
  }

  @Override
  public void close() {
    loaded.values().forEach(Loading::closeWhenLoaded);
    loaded.clear();
    for (ImplementationLoader l : byType.values()) {
      if (l instanceof AutoCloseable closeable) {
        try {
          closeable.close();
        } catch (Exception e) {
          LOG.debug("closing loader failed", e);
        }
      }
    }
  }
}
