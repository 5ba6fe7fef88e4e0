package dev.rcrt.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.Principal;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A tool call waiting for a person: an {@code approval.request.v1} breadcrumb the {@link
 * ToolRunner} writes when a call needs approval and no {@link ApprovalHandler} decides it on the
 * spot. {@code context {request_id, tool, tool_id?, input, requested_by, requested_at, expires_at,
 * run_id?}} (times ISO-8601 UTC), tagged {@code approval:request}, {@code request:<request_id>},
 * and the call's {@code session:} and {@code run:} tags; written by the runner ({@code
 * tools-runner}), once per request (idempotency key {@code approval.request.v1:<request_id>}).
 *
 * <p>The call does not run and its {@code tool.request.v1} stays unanswered until an {@link
 * ApprovalDecision} for it arrives, or the request expires, which is a denial ({@code tool_denied}).
 *
 * @param requestId the {@code tool.request.v1} waiting
 * @param tool the tool's name
 * @param toolId the tool breadcrumb's id, or null when it was not resolved
 * @param input the input as recorded (secrets scrubbed)
 * @param requestedBy who made the call (an agent, the host, a tool)
 * @param requestedAt when approval was first asked for
 * @param expiresAt when the request becomes a denial
 * @param runId the agent run the call belongs to, or null for a call outside a run
 */
public record ApprovalRequest(
    String requestId, String tool, @Nullable String toolId, JsonNode input, Principal requestedBy, Instant requestedAt,
    Instant expiresAt, @Nullable String runId) {

  /** The schema of approval requests. */
  public static final String SCHEMA = "approval.request.v1";

  /** Checks that the required parts are there. */
  public ApprovalRequest {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(tool, "tool");
    Objects.requireNonNull(input, "input");
    Objects.requireNonNull(requestedBy, "requestedBy");
    Objects.requireNonNull(requestedAt, "requestedAt");
    Objects.requireNonNull(expiresAt, "expiresAt");
  }

  /** Whether the request has run out at {@code now}: then it is a denial. */
  public boolean expiredAt(Instant now) {
    return !now.isBefore(expiresAt);
  }

  /** The breadcrumb to write, with {@code extraTags} (the call's session and run tags) and {@code writer}. */
  public BreadcrumbCreate toBreadcrumb(List<String> extraTags, String writer) {
    ObjectNode c = RcrtJson.object();
    c.put("request_id", requestId);
    c.put("tool", tool);
    if (toolId != null) {
      c.put("tool_id", toolId);
    }
    c.set("input", input);
    c.put("requested_by", requestedBy.wire());
    c.put("requested_at", requestedAt.toString());
    c.put("expires_at", expiresAt.toString());
    if (runId != null) {
      c.put("run_id", runId);
    }
    List<String> tags = new ArrayList<>(List.of("approval:request", "request:" + requestId));
    tags.addAll(extraTags);
    return BreadcrumbCreate.builder(SCHEMA, "Approval needed: " + tool)
        .context(c)
        .tags(tags)
        .createdBy(writer)
        .idempotencyKey(SCHEMA + ":" + requestId)
        .build();
  }

  /**
   * Reads an approval request.
   *
   * @throws ValidationException if {@code b} is not an {@code approval.request.v1} with the required fields
   */
  public static ApprovalRequest fromBreadcrumb(Breadcrumb b) {
    if (!SCHEMA.equals(b.schemaName())) {
      throw new ValidationException("breadcrumb '" + b.id() + "' is a " + b.schemaName() + ", not a " + SCHEMA);
    }
    JsonNode input = b.context().get("input");
    return new ApprovalRequest(
        required(b, "request_id"), required(b, "tool"), b.contextText("tool_id"), input == null ? RcrtJson.object() : input,
        Principal.ofWriter(b.contextText("requested_by")), instant(b, "requested_at"), instant(b, "expires_at"), b.contextText("run_id"));
  }

  static String required(Breadcrumb b, String field) {
    String value = b.contextText(field);
    if (value == null || value.isBlank()) {
      throw new ValidationException(b.schemaName() + " '" + b.id() + "' context/" + field + ": required, found none");
    }
    return value;
  }

  static Instant instant(Breadcrumb b, String field) {
    try {
      return Instant.parse(required(b, field));
    } catch (DateTimeParseException e) {
      throw new ValidationException(b.schemaName() + " '" + b.id() + "' context/" + field + ": not an ISO-8601 instant: " + e.getParsedString());
    }
  }
}
