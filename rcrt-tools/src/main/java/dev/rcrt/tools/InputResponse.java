package dev.rcrt.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.Principal;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A person's answer to an {@link InputRequest}: an {@code input.response.v1} breadcrumb, {@code
 * context {request_id, ordinal, action: "accept"|"decline"|"cancel", content?, answered_at,
 * run_id?}}, tagged {@code input:response}, {@code request:<request_id>} and the run's {@code
 * run:} tag. {@code content} (an object that fits the question's schema) comes with {@code accept}
 * only; the actions are MCP's elicitation results.
 *
 * <p>Who answered is the record's <b>writer</b>, stamped by whoever performs the write. As for
 * {@link ApprovalDecision}s, an answer counts only from the host or a principal named with {@link
 * ToolRunner.Builder#approvers}, and only when the store recorded it before the question expired;
 * the first such answer to a question counts, later ones change nothing.
 *
 * @param requestId the {@code tool.request.v1} whose tool asked
 * @param ordinal which question of that call it answers, from 1
 * @param answer what the user did, and the values given
 * @param answeredBy the record's writer
 * @param answeredAt when it was answered
 * @param runId the agent run the call belongs to, or null
 */
public record InputResponse(
    String requestId, int ordinal, ToolExchange.Elicited answer, Principal answeredBy, Instant answeredAt, @Nullable String runId) {

  /** The schema of input responses. */
  public static final String SCHEMA = "input.response.v1";

  /** Checks that the required parts are there, and that only an accepted answer carries content. */
  public InputResponse {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(answer, "answer");
    Objects.requireNonNull(answeredBy, "answeredBy");
    Objects.requireNonNull(answeredAt, "answeredAt");
    if (ordinal < 1) {
      throw new IllegalArgumentException("ordinal < 1: " + ordinal);
    }
    if (answer.action() == ToolExchange.Elicited.Action.ACCEPT && (answer.content() == null || !answer.content().isObject())) {
      throw new IllegalArgumentException("an accepted answer carries its values as a JSON object");
    }
  }

  /** Whether this answer counts: written by the host or one of {@code approvers} ({@link ToolRunner.Builder#approvers}). */
  public boolean countsFor(Set<Principal> approvers) {
    return answeredBy.isHost() || approvers.contains(answeredBy);
  }

  /** The breadcrumb to write, stamped as written by {@link #answeredBy()}. */
  public BreadcrumbCreate toBreadcrumb() {
    ObjectNode c = RcrtJson.object();
    c.put("request_id", requestId);
    c.put("ordinal", ordinal);
    c.put("action", answer.action().wire());
    if (answer.action() == ToolExchange.Elicited.Action.ACCEPT) {
      c.set("content", Objects.requireNonNull(answer.content(), "content"));
    }
    c.put("answered_at", answeredAt.toString());
    List<String> tags = new ArrayList<>(List.of("input:response", "request:" + requestId));
    if (runId != null) {
      c.put("run_id", runId);
      tags.add("run:" + runId);
    }
    return BreadcrumbCreate.builder(SCHEMA, "Input answer (" + answer.action().wire() + "): " + requestId + " #" + ordinal)
        .context(c)
        .tags(tags)
        .createdBy(answeredBy.wire())
        .build();
  }

  /**
   * Reads an answer; {@link #answeredBy()} is the record's writer.
   *
   * @throws ValidationException if {@code b} is not an {@code input.response.v1} with a request id,
   *     an ordinal from 1, an action of {@code accept}, {@code decline} or {@code cancel}, and an
   *     object as the content of an accepted answer
   */
  public static InputResponse fromBreadcrumb(Breadcrumb b) {
    if (!SCHEMA.equals(b.schemaName())) {
      throw new ValidationException("breadcrumb '" + b.id() + "' is a " + b.schemaName() + ", not a " + SCHEMA);
    }
    String action = ApprovalRequest.required(b, "action").toLowerCase(Locale.ROOT);
    ToolExchange.Elicited.Action a = switch (action) {
      case "accept" -> ToolExchange.Elicited.Action.ACCEPT;
      case "decline" -> ToolExchange.Elicited.Action.DECLINE;
      case "cancel" -> ToolExchange.Elicited.Action.CANCEL;
      default -> throw new ValidationException(SCHEMA + " '" + b.id() + "' context/action: must be \"accept\", \"decline\" or \"cancel\", found \""
          + action + "\"");
    };
    JsonNode content = b.context().get("content");
    if (a == ToolExchange.Elicited.Action.ACCEPT && (content == null || !content.isObject())) {
      throw new ValidationException(SCHEMA + " '" + b.id() + "' context/content: an accepted answer's values, as a JSON object, found "
          + (content == null ? "none" : content.getNodeType().toString()));
    }
    Instant at = b.contextText("answered_at") != null ? ApprovalRequest.instant(b, "answered_at") : b.createdAt();
    return new InputResponse(ApprovalRequest.required(b, "request_id"), InputRequest.ordinalOf(b),
        new ToolExchange.Elicited(a, a == ToolExchange.Elicited.Action.ACCEPT ? content : null), Principal.writerOf(b), at, b.contextText("run_id"));
  }
}
