package dev.rcrt.agent;

import dev.rcrt.core.RcrtException;
import org.jspecify.annotations.Nullable;

/**
 * A failure of the {@link AgentExecutor} itself, not of the model or a tool. Codes:
 *
 * <ul>
 *   <li>{@code agent_busy} (retriable): its bounded threads are all taken; ask again when a turn
 *       has ended;
 *   <li>{@code agent_closed}: it was closed; build a new one;
 *   <li>{@code agent_failed}: code the host plugged in (a model client, an observer) threw
 *       something other than an {@link RcrtException}; recorded as the turn's error response.
 * </ul>
 */
public final class AgentException extends RcrtException {
  private static final long serialVersionUID = 1L;
  /** Its bounded threads are all taken (retriable). */
  public static final String BUSY = "agent_busy";
  /** It was closed. */
  public static final String CLOSED = "agent_closed";
  /** Code the host plugged in threw something other than an {@code RcrtException}. */
  public static final String FAILED = "agent_failed";
  /**
   * A caller stopped waiting for a run's answer at its deadline ({@code AgentExecutor.ask}); the run
   * itself goes on, in any process that takes it up, and its answer is recorded when it comes.
   */
  public static final String WAIT_TIMEOUT = "agent_wait_timeout";

  /**
   * @param code {@link #BUSY}, {@link #CLOSED}, {@link #FAILED} or {@link #WAIT_TIMEOUT}
   * @param message what failed and what to do
   * @param retriable whether asking again later may succeed
   * @param cause the underlying failure, or null
   */
  public AgentException(String code, String message, boolean retriable, @Nullable Throwable cause) {
    super(code, message, retriable, cause);
  }
}
