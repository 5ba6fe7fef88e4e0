package dev.rcrt.tools.internal.loader;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.tools.ToolContext;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolHandler;
import dev.rcrt.tools.internal.CallScope;
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
    String export = definition.implementation().text("export", definition.name());
    String key = export.startsWith("builtinTools.") ? export.substring("builtinTools.".length()) : export;
    ToolHandler handler = handlers.get(key);
    if (handler == null) {
      throw new ToolException(
          ToolErrorCode.TOOL_UNSUPPORTED,
          "tool '" + definition.name() + "' is builtin, but no handler named '" + key
              + "' is registered with this runner; registered: " + new TreeSet<>(handlers.keySet()));
    }
    return handlerInvoker(handler);
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
