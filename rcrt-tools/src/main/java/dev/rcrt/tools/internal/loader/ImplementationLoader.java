package dev.rcrt.tools.internal.loader;

import dev.rcrt.tools.ToolDefinition;

/** Loads the code of one implementation type. */
public interface ImplementationLoader {
  /**
   * Loads the code behind {@code definition}.
   *
   * @throws dev.rcrt.tools.ToolException naming what is missing (the handler, module, image…)
   */
  Invoker load(ToolDefinition definition);
}
