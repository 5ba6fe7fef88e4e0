package dev.rcrt.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.Principal;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import dev.rcrt.core.spi.Records;
import dev.rcrt.llm.ChatResponse;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * An agent's answer to one user message: an RCRT {@code agent.response.v1} breadcrumb, {@code
 * context {message, creator: {type: "agent", agent_id}, trigger_event_id, timestamp, agent_id,
 * session_id, trigger_id, model, status, rounds, tool_calls, usage?, error?}}, tagged {@code
 * agent:response}, {@code chat:output} and {@code session:<sessionId>}, written by {@code
 * agent:<agent_id>}. The first three are RCRT's fields, which its runners and dashboard read; the
 * rest are the SDK's ({@code agent_id} and {@code trigger_id} repeat them). Records in RCRT's form
 * alone are read too.
 *
 * @param id the breadcrumb's id (empty before it is stored)
 * @param sessionId the conversation
 * @param agentId the agent that answered
 * @param triggerId the {@code user.message.v1} it answers
 * @param message the answer's text
 * @param model the model that answered, as the client was asked for it ({@code "offline-demo"} for
 *     the CLI's offline model); null in records written before the model was recorded
 * @param status how the turn ended
 * @param rounds how many times the model was asked
 * @param toolCalls how many tool calls it made
 * @param usage the turn's token counts summed over its rounds, or null when the provider reported none
 * @param error for {@link Status#ERROR}: the error's code and message; else null
 */
public record AgentResponse(
    String id,
    String sessionId,
    String agentId,
    String triggerId,
    String message,
    @Nullable String model,
    Status status,
    int rounds,
    int toolCalls,
    ChatResponse.@Nullable Usage usage,
    @Nullable Error error) {

  /** The schema of agent responses. */
  public static final String SCHEMA = "agent.response.v1";

  /** Validates required fields. */
  public AgentResponse {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(agentId, "agentId");
    Objects.requireNonNull(triggerId, "triggerId");
    Objects.requireNonNull(message, "message");
    Objects.requireNonNull(status, "status");
  }

  /** How a turn ended; written in lower snake case ({@code round_limit}). */
  public enum Status {
    /** The model answered without further tool calls. */
    SUCCESS,
    /** The round limit was reached; the message says so. */
    ROUND_LIMIT,
    /** The model could not be asked, or the run passed its deadline; {@link #error()} says why. */
    ERROR,
    /** The run was cancelled ({@code Runs.cancel}) before it answered. */
    CANCELLED;

    /** The wire form, such as {@code "round_limit"}. */
    public String wire() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * Why a turn failed.
   *
   * @param code the {@link dev.rcrt.core.RcrtException#code()}, such as {@code llm_timeout}
   * @param message what happened; never contains a secret
   */
  public record Error(String code, String message) {
    /** The model refused to answer (OpenAI's {@code refusal}); the message quotes the refusal. */
    public static final String MODEL_REFUSED = "model_refused";
    /** The provider's content filter withheld or cut the answer ({@code finish_reason: "content_filter"}). */
    public static final String MODEL_CONTENT_FILTERED = "model_content_filtered";
    /**
     * The answer hit the model's output token limit ({@code finish_reason: "length"}): the message
     * gives the cut-off text, and a tool call in it was not run.
     */
    public static final String MODEL_TRUNCATED = "model_truncated";
  }

  /** The breadcrumb to write for this response. */
  public BreadcrumbCreate toBreadcrumb() {
    ObjectNode c = RcrtJson.object();
    c.put("message", message);
    c.putObject("creator").put("type", "agent").put("agent_id", agentId);
    c.put("trigger_event_id", triggerId);
    c.put("timestamp", Records.timestamp());
    c.put("agent_id", agentId);
    c.put("session_id", sessionId);
    c.put("trigger_id", triggerId);
    c.put("model", model);
    c.put("status", status.wire());
    c.put("rounds", rounds);
    c.put("tool_calls", toolCalls);
    if (usage != null) {
      c.putObject("usage")
          .put("prompt_tokens", usage.promptTokens())
          .put("completion_tokens", usage.completionTokens())
          .put("total_tokens", usage.totalTokens());
    }
    if (error != null) {
      c.putObject("error").put("code", error.code()).put("message", error.message());
    }
    return BreadcrumbCreate.builder(SCHEMA, "Agent response")
        .context(c)
        .tags("agent:response", "chat:output", "session:" + sessionId)
        .createdBy(Principal.agent(agentId).wire())
        .build();
  }

  /**
   * Reads a response. An unknown or missing status reads as {@link Status#SUCCESS}.
   *
   * @throws ValidationException if {@code b} is not an {@code agent.response.v1} with a text {@code
   *     context.message}
   */
  public static AgentResponse fromBreadcrumb(Breadcrumb b) {
    if (!SCHEMA.equals(b.schemaName())) {
      throw new ValidationException("breadcrumb '" + b.id() + "' is a " + b.schemaName() + ", not a " + SCHEMA);
    }
    JsonNode c = b.context();
    String message = b.contextText("message");
    if (message == null) {
      throw new ValidationException("agent response '" + b.id() + "' context/message: required, found none");
    }
    JsonNode u = c.path("usage");
    JsonNode e = c.path("error");
    return new AgentResponse(
        b.id(),
        UserMessage.sessionOf(b),
        firstText(b.contextText("agent_id"), c.path("creator").path("agent_id").textValue()),
        firstText(b.contextText("trigger_id"), b.contextText("trigger_event_id")),
        message,
        b.contextText("model"),
        status(c.path("status").asText("success")),
        c.path("rounds").asInt(0),
        c.path("tool_calls").asInt(0),
        u.isObject()
            ? new ChatResponse.Usage(u.path("prompt_tokens").asLong(), u.path("completion_tokens").asLong(), u.path("total_tokens").asLong())
            : null,
        e.isObject() ? new Error(e.path("code").asText(""), e.path("message").asText("")) : null);
  }

  private static String firstText(@Nullable String sdk, @Nullable String rcrt) {
    return sdk != null ? sdk : Objects.requireNonNullElse(rcrt, "");
  }

  private static Status status(String wire) {
    for (Status s : Status.values()) {
      if (s.wire().equals(wire)) {
        return s;
      }
    }
    return Status.SUCCESS;
  }
}
