package dev.rcrt.tools.internal.loader;

import dev.rcrt.tools.ToolDefinition;
import java.util.List;

/** Loads the code of one implementation type. */
public interface ImplementationLoader {
  /**
   * Loads the code behind {@code definition}.
   *
   * @throws dev.rcrt.tools.ToolException naming what is missing (the handler, module, image…)
   */
  Invoker load(ToolDefinition definition);

  /**
   * What {@link #load} would refuse in the definition itself (a missing endpoint, an unknown
   * mode…), found without loading code, starting anything or touching the network; empty when
   * nothing is wrong. What depends on the moment (an image not pulled) is left to {@code load}.
   */
  default List<String> problems(ToolDefinition definition) {
    return List.of();
  }

  /**
   * Whether this loader has what {@code definition} names, as far as a cheap look tells (a builtin
   * tool's handler is registered); true unless it knows otherwise. Called for every tool of every
   * discovery: no parsing, no I/O.
   */
  default boolean serves(ToolDefinition definition) {
    return true;
  }
}
