package dev.rcrt.agent.internal.loop;

import dev.rcrt.core.spi.Ids;

/**
 * The names a run is known by, all derived, so any process finds the same records: the run's id
 * (from the agent and the record that started it), its tag, its claim, its answer's idempotency
 * key, and each call's request id (from the run, the round and the call's position).
 */
public final class RunIds {
  private RunIds() {}

  /** The run of agent {@code agentId} answering record {@code triggerId}. */
  public static String runId(String agentId, String triggerId) {
    return Ids.named("rcrt.run/" + agentId + "/" + triggerId);
  }

  /** The tag on every record of run {@code runId}. */
  public static String tag(String runId) {
    return "run:" + runId;
  }

  /** The {@code WorkClaims} key a process holds while it takes the run's steps. */
  public static String claimKey(String runId) {
    return "agent.run:" + runId;
  }

  /** The idempotency key of the run's one answer. */
  public static String answerKey(String runId) {
    return "agent.response.v1:" + runId;
  }

  /** The request id of call {@code call} (from 0) of round {@code round}. */
  static String requestId(String runId, int round, int call) {
    return Ids.named("rcrt.run/" + runId + "/" + round + "/" + call);
  }
}
