package dev.rcrt.tools.internal.loader;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.tools.ToolContext;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolHandler;
import dev.rcrt.tools.internal.CallScope;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Type {@code builtin}: a {@link ToolHandler} registered under the implementation's {@code export}
 * (RCRT's {@code builtinTools.<name>} form is accepted) or, without one, the tool's name.
 */
public final class BuiltinLoader implements ImplementationLoader {
  private final Map<String, ToolHandler> handlers;

  public BuiltinLoader(Map<String, ToolHandler> handlers) {
    this.handlers = Map.copyOf(handlers);
  }

  @Override
  public Invoker load(ToolDefinition definition) {
    ToolHandler handler = handlers.get(key(definition));
    if (handler == null) {
      throw new ToolException(ToolErrorCode.TOOL_UNSUPPORTED, missing(definition));
    }
    return handlerInvoker(handler);
  }

  @Override
  public List<String> problems(ToolDefinition definition) {
    return serves(definition) ? List.of() : List.of(missing(definition));
  }

  @Override
  public boolean serves(ToolDefinition definition) {
    return handlers.containsKey(key(definition));
  }

  private static String key(ToolDefinition definition) {
    String export = definition.implementation().text("export", definition.name());
    return export.startsWith("builtinTools.") ? export.substring("builtinTools.".length()) : export;
  }

  private String missing(ToolDefinition definition) {
    String module = definition.implementation().text("module", "");
    return "tool '" + definition.name() + "' is builtin, but no handler named '" + key(definition) + "' is registered with this runner;"
        + " registered: " + new TreeSet<>(handlers.keySet())
        + (module.isEmpty() ? "" : "; module '" + module + "' is code of another runtime (RCRT's Node.js tools-runner), which this SDK does not load");
  }

  /** Calls a Java handler. */
  static Invoker handlerInvoker(ToolHandler handler) {
    return new Invoker() {
      @Override
      public JsonNode invoke(JsonNode input, ToolContext context, CallScope scope) throws Exception {
        return handler.execute(input, context);
      }

      @Override
      public boolean enforcesDeadline() {
        return false;
      }

      @Override
      public void close() {}
    };
  }
}
