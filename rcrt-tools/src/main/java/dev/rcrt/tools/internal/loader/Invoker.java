package dev.rcrt.tools.internal.loader;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.tools.ToolContext;
import dev.rcrt.tools.internal.CallScope;

/** Loaded tool code, ready to call. Implementations are thread-safe. */
public interface Invoker extends AutoCloseable {
  /**
   * Runs the code on an input that has already passed the input schema.
   *
   * @param scope the call's deadline (stop by {@link CallScope#remaining()}) and its secrets
   */
  JsonNode invoke(JsonNode input, ToolContext context, CallScope scope) throws Exception;

  /**
   * Whether {@link #invoke} stops by the scope's deadline on its own (an HTTP timeout, a context
   * interrupt, a container kill). Others (Java handlers) are watched by the chain's watchdog, which
   * interrupts the calling thread at the deadline. Every invoker runs on the caller's thread.
   */
  boolean enforcesDeadline();

  /** Releases what loading acquired (contexts, containers). Never throws. */
  @Override
  void close();
}
