package dev.rcrt.agent;

/**
 * Receives the text of one run's model rounds as this process streams it ({@link
 * AgentExecutor#streamText}): OpenAI chat-completions streaming's {@code choices[0].delta.content},
 * scrubbed of every secret value the executor's runner knows. Called on the thread that reads the
 * model's stream, in order, one round after another; keep it quick (hand the text to another
 * thread) and do not throw: what it throws is logged and dropped.
 */
@FunctionalInterface
public interface RunTextListener {
  /**
   * More of a round's text.
   *
   * @param round the round it belongs to, 1 for the run's first model call, as the run's records
   *     number them ({@code agent.response.v1} {@code round}; the answer's {@code rounds})
   * @param delta the text that follows what this listener was given of that round, never empty
   */
  void onText(int round, String delta);
}
