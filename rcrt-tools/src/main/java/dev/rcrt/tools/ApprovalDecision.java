package dev.rcrt.tools;

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
import org.jspecify.annotations.Nullable;

/**
 * A person's answer to an {@link ApprovalRequest}: an {@code approval.decision.v1} breadcrumb,
 * {@code context {request_id, decision: "approve"|"deny", decided_at, reason?, run_id?}}, tagged
 * {@code approval:decision}, {@code request:<request_id>} and the run's {@code run:} tag.
 *
 * <p>Who decided is the record's <b>writer</b> ({@link Principal#writerOf}), stamped by whoever
 * performs the write, never a field the writer fills in. The runner accepts a decision only from
 * the host or a principal named with {@link ToolRunner.Builder#approvers}; one written by a tool, an
 * agent (a model's doing) or anyone else is ignored, logged and listed by the run as ignored. The
 * first accepted decision counts; a later one changes nothing.
 *
 * @param requestId the {@code tool.request.v1} decided
 * @param approved true to run the call, false to deny it
 * @param decidedBy the record's writer
 * @param decidedAt when it was decided
 * @param reason why, or null
 * @param runId the agent run the call belongs to, or null
 */
public record ApprovalDecision(
    String requestId, boolean approved, Principal decidedBy, Instant decidedAt, @Nullable String reason, @Nullable String runId) {

  /** The schema of approval decisions. */
  public static final String SCHEMA = "approval.decision.v1";

  /** Checks that the required parts are there. */
  public ApprovalDecision {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(decidedBy, "decidedBy");
    Objects.requireNonNull(decidedAt, "decidedAt");
  }

  /** Whether this decision counts: written by the host or one of {@code approvers} ({@link ToolRunner.Builder#approvers}). */
  public boolean countsFor(java.util.Set<Principal> approvers) {
    return decidedBy.isHost() || approvers.contains(decidedBy);
  }

  /** The breadcrumb to write, stamped as written by {@link #decidedBy()}. */
  public BreadcrumbCreate toBreadcrumb() {
    ObjectNode c = RcrtJson.object();
    c.put("request_id", requestId);
    c.put("decision", approved ? "approve" : "deny");
    c.put("decided_at", decidedAt.toString());
    if (reason != null) {
      c.put("reason", reason);
    }
    List<String> tags = new ArrayList<>(List.of("approval:decision", "request:" + requestId));
    if (runId != null) {
      c.put("run_id", runId);
      tags.add("run:" + runId);
    }
    return BreadcrumbCreate.builder(SCHEMA, (approved ? "Approved" : "Denied") + ": " + requestId)
        .context(c)
        .tags(tags)
        .createdBy(decidedBy.wire())
        .build();
  }

  /**
   * Reads a decision; {@link #decidedBy()} is the record's writer.
   *
   * @throws ValidationException if {@code b} is not an {@code approval.decision.v1} with a request id
   *     and a decision of {@code approve} or {@code deny}
   */
  public static ApprovalDecision fromBreadcrumb(Breadcrumb b) {
    if (!SCHEMA.equals(b.schemaName())) {
      throw new ValidationException("breadcrumb '" + b.id() + "' is a " + b.schemaName() + ", not a " + SCHEMA);
    }
    String decision = ApprovalRequest.required(b, "decision").toLowerCase(Locale.ROOT);
    if (!decision.equals("approve") && !decision.equals("deny")) {
      throw new ValidationException(SCHEMA + " '" + b.id() + "' context/decision: must be \"approve\" or \"deny\", found \"" + decision + "\"");
    }
    Instant at = b.contextText("decided_at") != null ? ApprovalRequest.instant(b, "decided_at") : b.createdAt();
    return new ApprovalDecision(
        ApprovalRequest.required(b, "request_id"), decision.equals("approve"), Principal.writerOf(b), at, b.contextText("reason"),
        b.contextText("run_id"));
  }
}
