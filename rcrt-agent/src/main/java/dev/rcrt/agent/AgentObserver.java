package dev.rcrt.agent;

import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;

/**
 * Watches an executor's turns, for tracing and metrics ({@code rcrt-opentelemetry} implements it):
 * told when a turn starts, on the turn's thread, and when it ends. Tool calls a turn runs in
 * parallel leave that thread; {@link #carry} lets the observer take what it keeps per thread (a
 * tracing context) along. Implementations must be thread-safe and quick, and must not throw.
 */
public interface AgentObserver {

  /** Observes nothing; the default. */
  AgentObserver NONE = (agentId, sessionId) -> (response, failure) -> {};

  /**
   * A turn of {@code agentId} in {@code sessionId} starts, on the thread that runs it.
   *
   * @return told once, on the same thread, when the turn ends
   */
  Turn turnStarted(String agentId, String sessionId);

  /** {@code task}, to run on another thread as if on the turn's own; default {@code task} itself. */
  default <T> Callable<T> carry(Callable<T> task) {
    return task;
  }

  /**
   * Run {@code runId} of {@code agentId} stopped to wait, holding no thread: for {@code what} (an
   * approval decision, a listening runner's response). It goes on when that record arrives, in
   * whichever process takes it up. Default: nothing.
   */
  default void runWaiting(String agentId, String runId, String what) {}

  /** One turn being observed. */
  interface Turn {
    /**
     * The turn ended.
     *
     * @param response the recorded answer (its status says whether the round limit ended it), or
     *     null when the turn failed
     * @param failure why the turn failed (the model could not be asked), or null
     */
    void ended(@Nullable AgentResponse response, @Nullable Throwable failure);
  }
}
