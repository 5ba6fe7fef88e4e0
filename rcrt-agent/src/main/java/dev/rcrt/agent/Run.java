package dev.rcrt.agent;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.tools.ApprovalRequest;
import dev.rcrt.tools.InputRequest;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One agent run: the turn answering one user message, as its records tell it ({@link Runs#show}).
 * A run's id is derived from the agent and the message, so every process names it alike.
 *
 * @param id the run's id
 * @param agentId the agent taking it
 * @param sessionId the conversation
 * @param triggerId the {@code user.message.v1} it answers
 * @param status where it stands
 * @param rounds how many model rounds asked for tools so far
 * @param pending the calls of its last round without a response, oldest first
 * @param answer its answer once it has one, else null
 * @param ignoredDecisions approval decisions on its calls that did not count (written by a tool, an
 *     agent or another principal the runners do not accept), as {@code "<record id> by <writer>"}
 * @param records every record of the run, oldest first
 * @param updatedAt when its newest record was written
 */
public record Run(
    String id, String agentId, String sessionId, String triggerId, Status status, int rounds, List<PendingCall> pending,
    @Nullable AgentResponse answer, List<String> ignoredDecisions, List<Breadcrumb> records, Instant updatedAt) {

  /** The tag of a run's round records ({@link #isRound}). */
  public static final String ROUND_TAG = "agent:round";

  /** The {@code status} of a round record: it asked for tools (RCRT's {@code tool_calls}); it is no answer. */
  public static final String ROUND_STATUS = "tool_calls";

  /**
   * Whether {@code record} is one of a run's rounds: an {@code agent.response.v1} tagged {@link
   * #ROUND_TAG} (as this SDK writes them), or with status {@link #ROUND_STATUS} (as RCRT's own agents
   * write their tool calls). A round record is never the run's answer.
   */
  public static boolean isRound(Breadcrumb record) {
    return AgentResponse.SCHEMA.equals(record.schemaName()) && (record.hasTag(ROUND_TAG) || ROUND_STATUS.equals(record.contextText("status")));
  }

  /** Checks and copies. */
  public Run {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(status, "status");
    pending = List.copyOf(pending);
    ignoredDecisions = List.copyOf(ignoredDecisions);
    records = List.copyOf(records);
  }

  /**
   * The id of the run in which agent {@code agentId} answers user message {@code messageId}: a
   * name-based UUID, the same in every process (what {@code ./rcrt chat --no-wait} prints).
   */
  public static String idOf(String agentId, String messageId) {
    return dev.rcrt.agent.internal.loop.RunIds.runId(Objects.requireNonNull(agentId, "agentId"), Objects.requireNonNull(messageId, "messageId"));
  }

  /** Where a run stands; written in lower snake case ({@code waiting_for_approval}). A person is waited for first: approval, then input. */
  public enum Status {
    /** A process is taking its steps, or will: no call of it waits. */
    RUNNING,
    /** A call waits for a listening runner's response (event mode). */
    WAITING_FOR_TOOLS,
    /** A call waits for an approval decision. */
    WAITING_FOR_APPROVAL,
    /**
     * A call's tool asked its user a question ({@link dev.rcrt.tools.InputRequest}) that has no
     * answer yet: {@link Runs#answer} gives it.
     */
    WAITING_FOR_INPUT,
    /** Answered (the answer's status may be {@code round_limit}). */
    DONE,
    /** Ended with an error answer (the model failed, the deadline passed). */
    FAILED,
    /** Cancelled before it answered. */
    CANCELLED;

    /** The wire form, such as {@code "waiting_for_approval"}. */
    public String wire() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * A call of the run without a response.
   *
   * @param requestId its {@code tool.request.v1} (the CALL of {@code ./rcrt runs approve RUN CALL})
   * @param tool the tool's name
   * @param input the input as recorded
   * @param approval the approval it waits for, or null when it needs none or has it
   * @param question its tool's question that waits for an answer, or null
   */
  public record PendingCall(
      String requestId, String tool, JsonNode input, @Nullable ApprovalRequest approval, @Nullable InputRequest question) {

    /** A call that waits for approval ({@code approval} not null) or for a runner, with no question. */
    public PendingCall(String requestId, String tool, JsonNode input, @Nullable ApprovalRequest approval) {
      this(requestId, tool, input, approval, null);
    }
  }
}
