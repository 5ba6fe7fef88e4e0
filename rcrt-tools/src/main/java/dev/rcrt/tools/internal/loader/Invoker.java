package dev.rcrt.tools.internal.loader;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.tools.ToolContext;

/** Loaded tool code, ready to call. Implementations are thread-safe. */
public interface Invoker extends AutoCloseable {
  /** Runs the code on an input that has already passed the input schema. */
  JsonNode invoke(JsonNode input, ToolContext context) throws Exception;

  /** Releases what loading acquired (contexts, containers). Never throws. */
  @Override
  void close();
}
