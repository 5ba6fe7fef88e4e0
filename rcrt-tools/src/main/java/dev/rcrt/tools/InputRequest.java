package dev.rcrt.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A running tool's question for its user, kept in the store until a person answers it: an {@code
 * input.request.v1} breadcrumb, written when a tool an agent's run calls asks for input
 * ({@link ToolContext#elicit}, a JavaScript tool's {@code context.elicit}) and its caller is the
 * run, not an MCP client that can ask at once. {@code context {request_id, ordinal, tool, message,
 * requested_schema, requested_at, expires_at, run_id?}} (times ISO-8601 UTC), tagged {@code
 * input:request}, {@code request:<request_id>} and the call's {@code session:} and {@code run:}
 * tags; written by the runner ({@code tools-runner}), once per question (idempotency key {@code
 * input.request.v1:<request_id>:<ordinal>}).
 *
 * <p>The call does not finish while its question waits: its {@code tool.request.v1} stays
 * unanswered and the run waits, holding no thread, until an {@link InputResponse} from the host or
 * an approver arrives ({@code Runs.answer}, {@code ./rcrt runs answer}) or the question expires.
 * Then the call runs again from its start, and its questions are answered from the records in the
 * order it asks them: the {@code ordinal}-th question of the call gets the {@code ordinal}-th
 * answer. A tool that asks should therefore ask before it acts. An expired question is answered
 * {@code cancel}.
 *
 * @param requestId the {@code tool.request.v1} whose tool asks
 * @param ordinal which question of that call this is, from 1
 * @param tool the tool's name
 * @param message what the user is asked (secrets scrubbed)
 * @param requestedSchema the JSON Schema object the answer must fit, as MCP's elicitation takes it
 * @param requestedAt when the question was first asked
 * @param expiresAt when it is answered {@code cancel} if no one answered it
 * @param runId the agent run the call belongs to, or null
 */
public record InputRequest(
    String requestId, int ordinal, String tool, String message, JsonNode requestedSchema, Instant requestedAt, Instant expiresAt,
    @Nullable String runId) {

  /** The schema of input requests. */
  public static final String SCHEMA = "input.request.v1";

  /** Checks that the required parts are there. */
  public InputRequest {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(tool, "tool");
    Objects.requireNonNull(message, "message");
    Objects.requireNonNull(requestedSchema, "requestedSchema");
    Objects.requireNonNull(requestedAt, "requestedAt");
    Objects.requireNonNull(expiresAt, "expiresAt");
    if (ordinal < 1) {
      throw new IllegalArgumentException("ordinal < 1: " + ordinal);
    }
  }

  /** Whether the question has run out at {@code now}: then it is answered {@code cancel}. */
  public boolean expiredAt(Instant now) {
    return !now.isBefore(expiresAt);
  }

  /**
   * Whether {@code answer}, which the store recorded at {@code recordedAt}, answers this question:
   * it names this call and this question's place, it was written by the host or one of {@code
   * approvers}, and it was recorded no later than this question's expiry.
   */
  public boolean answeredBy(InputResponse answer, Instant recordedAt, java.util.Set<dev.rcrt.core.Principal> approvers) {
    return answer.requestId().equals(requestId) && answer.ordinal() == ordinal && answer.countsFor(approvers) && !recordedAt.isAfter(expiresAt);
  }

  /** The breadcrumb to write, with {@code extraTags} (the call's session and run tags) and {@code writer}. */
  public BreadcrumbCreate toBreadcrumb(List<String> extraTags, String writer) {
    ObjectNode c = RcrtJson.object();
    c.put("request_id", requestId);
    c.put("ordinal", ordinal);
    c.put("tool", tool);
    c.put("message", message);
    c.set("requested_schema", requestedSchema);
    c.put("requested_at", requestedAt.toString());
    c.put("expires_at", expiresAt.toString());
    if (runId != null) {
      c.put("run_id", runId);
    }
    List<String> tags = new ArrayList<>(List.of("input:request", "request:" + requestId));
    tags.addAll(extraTags);
    return BreadcrumbCreate.builder(SCHEMA, "Input needed: " + tool)
        .context(c)
        .tags(tags)
        .createdBy(writer)
        .idempotencyKey(SCHEMA + ":" + requestId + ":" + ordinal)
        .build();
  }

  /**
   * Reads an input request.
   *
   * @throws ValidationException if {@code b} is not an {@code input.request.v1} with the required
   *     fields, an ordinal of 1 or more and an object as its schema
   */
  public static InputRequest fromBreadcrumb(Breadcrumb b) {
    if (!SCHEMA.equals(b.schemaName())) {
      throw new ValidationException("breadcrumb '" + b.id() + "' is a " + b.schemaName() + ", not a " + SCHEMA);
    }
    JsonNode schema = b.context().path("requested_schema");
    if (!schema.isObject()) {
      throw new ValidationException(SCHEMA + " '" + b.id() + "' context/requested_schema: a JSON Schema object, found " + schema.getNodeType());
    }
    return new InputRequest(
        ApprovalRequest.required(b, "request_id"), ordinalOf(b), ApprovalRequest.required(b, "tool"),
        Objects.requireNonNullElse(b.contextText("message"), ""), schema, ApprovalRequest.instant(b, "requested_at"),
        ApprovalRequest.instant(b, "expires_at"), b.contextText("run_id"));
  }

  static int ordinalOf(Breadcrumb b) {
    JsonNode n = b.context().path("ordinal");
    if (!n.canConvertToInt() || !n.isIntegralNumber() || n.asInt() < 1) {
      throw new ValidationException(b.schemaName() + " '" + b.id() + "' context/ordinal: a whole number from 1, found " + n);
    }
    return n.asInt();
  }
}
