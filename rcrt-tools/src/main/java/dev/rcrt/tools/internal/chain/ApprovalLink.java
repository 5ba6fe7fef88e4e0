package dev.rcrt.tools.internal.chain;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.Principal;
import dev.rcrt.core.Selector;
import dev.rcrt.core.ValidationException;
import dev.rcrt.tools.ApprovalDecision;
import dev.rcrt.tools.ApprovalHandler;
import dev.rcrt.tools.ApprovalRequest;
import dev.rcrt.tools.ToolChain;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.internal.SecretValues;
import dev.rcrt.core.TimeSource;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides a call that needs approval ({@code requires_approval: true}, or selected by the host's
 * policy) before it runs. With an {@link ApprovalHandler} the handler decides on the spot; a
 * refusal or a handler that throws denies. Without one the decision is a record: an accepted {@link
 * ApprovalDecision} for the request approves or denies it; with none yet, an {@link
 * ApprovalRequest} is written (once) and the call ends {@code tool_approval_pending}, unrecorded, so
 * the request stays open; an approval request past its expiry is a denial. A denial is recorded
 * like any response, so the request is answered and never runs later.
 */
final class ApprovalLink implements RealToolChain.Link {
  private static final Logger LOG = LoggerFactory.getLogger(ApprovalLink.class);

  /** How approvals are decided when no handler does it on the spot. */
  record Records(BreadcrumbStore store, TimeSource clock, Duration expiry, Set<Principal> approvers, SecretValues known) {}

  private final @Nullable ApprovalHandler handler;
  private final Predicate<ToolDefinition> policy;
  private final Listeners listeners;
  private final Records records;

  ApprovalLink(@Nullable ApprovalHandler handler, Predicate<ToolDefinition> policy, Listeners listeners, Records records) {
    this.handler = handler;
    this.policy = policy;
    this.listeners = listeners;
    this.records = records;
  }

  @Override
  public String name() {
    return "approval";
  }

  @Override
  public ToolResponse intercept(ToolChain chain) {
    ToolDefinition tool = chain.tool();
    boolean needed = tool.context().path("requires_approval").asBoolean(false) || policy.test(tool);
    if (needed) {
      String denied = handler != null ? onTheSpot(chain.request(), tool) : fromRecords(((RealToolChain) chain).call(), tool);
      if (denied != null) {
        listeners.callDenied(chain.request(), tool, ToolErrorCode.TOOL_DENIED.code());
        throw new ToolException(ToolErrorCode.TOOL_DENIED,
            "the call to '" + tool.name() + "' was not approved" + denied + ", so it did not run; do not call it again for this request");
      }
    }
    return chain.proceed(chain.request());
  }

  /** The handler's decision: null to run, else why not. */
  private @Nullable String onTheSpot(ToolRequest request, ToolDefinition tool) {
    try {
      return handler != null && handler.approve(request.withInput(request.input().deepCopy()), tool) ? null : "";
    } catch (RuntimeException e) {
      LOG.warn("approval handler failed for '{}', so the call is denied: {}", tool.name(), e.toString());
      return "";
    }
  }

  /**
   * The recorded decision: null to run, else why not; throws {@code tool_approval_pending} after
   * writing the approval request when there is none yet. A decision the store recorded after the
   * request's {@code expires_at} does not count: the call is denied as expired, whoever decided.
   */
  private @Nullable String fromRecords(CallState call, ToolDefinition tool) {
    String requestId = call.request.requestId();
    ApprovalDecision decision = decision(requestId);
    if (decision != null) {
      String by = " by " + decision.decidedBy() + (decision.reason() == null ? "" : " (" + decision.reason() + ")");
      return decision.approved() ? null : by;
    }
    Instant now = records.clock().instant();
    List<String> tags = ExecutionChain.conversationTags(call.tags);
    String runId = tags.stream().filter(t -> t.startsWith("run:")).map(t -> t.substring(4)).findFirst().orElse(null);
    ApprovalRequest asked = new ApprovalRequest(requestId, tool.name(), tool.sourceId(), records.known().scrub(call.request.input()),
        call.caller, now, now.plus(records.expiry()), runId);
    ApprovalRequest stored = ApprovalRequest.fromBreadcrumb(records.store().create(asked.toBreadcrumb(tags, ExecutionChain.WRITER)));
    if (stored.expiredAt(now)) {
      return ": its approval request expired at " + stored.expiresAt() + " without a decision";
    }
    throw new ToolException(ToolErrorCode.TOOL_APPROVAL_PENDING,
        "the call to '" + tool.name() + "' waits for approval until " + stored.expiresAt() + " (request " + requestId + ")");
  }

  /**
   * The first decision on {@code requestId} by an approver, recorded (by the store's time, not the
   * writer's {@code decided_at}) no later than its approval request's {@code expires_at}; others are
   * ignored and logged. The request is read only when there are decisions to judge.
   */
  private @Nullable ApprovalDecision decision(String requestId) {
    List<Breadcrumb> newestFirst =
        records.store().search(Selector.schema(ApprovalDecision.SCHEMA).withAllTags("request:" + requestId), 100, 0);
    if (newestFirst.isEmpty()) {
      return null;
    }
    List<Breadcrumb> asked = records.store().search(Selector.schema(ApprovalRequest.SCHEMA).withAllTags("request:" + requestId), 1, 0);
    Instant expires = asked.isEmpty() ? null : ApprovalRequest.fromBreadcrumb(asked.get(0)).expiresAt();
    for (int i = newestFirst.size() - 1; i >= 0; i--) {
      Breadcrumb b = newestFirst.get(i);
      try {
        ApprovalDecision d = ApprovalDecision.fromBreadcrumb(b);
        if (expires != null && b.createdAt().isAfter(expires)) {
          LOG.warn("ignored approval decision '{}' on request '{}': recorded at {}, after the request expired at {}", b.id(), requestId,
              b.createdAt(), expires);
          continue;
        }
        if (d.countsFor(records.approvers())) {
          return d;
        }
        LOG.warn("ignored approval decision '{}' on request '{}': written by {}, who may not decide (only the host and the"
            + " runner's approvers may)", b.id(), requestId, d.decidedBy());
      } catch (ValidationException malformed) {
        LOG.warn("ignored approval decision '{}' on request '{}': {}", b.id(), requestId, malformed.getMessage());
      }
    }
    return null;
  }
}
