package dev.rcrt.tools.internal.chain;

import dev.rcrt.tools.ApprovalHandler;
import dev.rcrt.tools.ToolChain;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks the {@link ApprovalHandler} before a tool that needs approval runs ({@code
 * requires_approval: true}, or selected by the host's policy). No handler, a refusal or a handler
 * that throws all deny; the denial is recorded like any response, so the request is answered and
 * never runs later.
 */
final class ApprovalLink implements RealToolChain.Link {
  private static final Logger LOG = LoggerFactory.getLogger(ApprovalLink.class);

  private final @Nullable ApprovalHandler handler;
  private final Predicate<ToolDefinition> policy;
  private final Listeners listeners;

  ApprovalLink(@Nullable ApprovalHandler handler, Predicate<ToolDefinition> policy, Listeners listeners) {
    this.handler = handler;
    this.policy = policy;
    this.listeners = listeners;
  }

  @Override
  public String name() {
    return "approval";
  }

  @Override
  public ToolResponse intercept(ToolChain chain) {
    ToolDefinition tool = chain.tool();
    boolean needed = tool.context().path("requires_approval").asBoolean(false) || policy.test(tool);
    if (needed && !approved(chain.request(), tool)) {
      listeners.callDenied(chain.request(), tool, ToolErrorCode.TOOL_DENIED.code());
      throw new ToolException(
          ToolErrorCode.TOOL_DENIED,
          "the call to '" + tool.name() + "' was not approved, so it did not run; do not call it again for this request");
    }
    return chain.proceed(chain.request());
  }

  private boolean approved(ToolRequest request, ToolDefinition tool) {
    if (handler == null) {
      return false;
    }
    try {
      return handler.approve(request.withInput(request.input().deepCopy()), tool);
    } catch (RuntimeException e) {
      LOG.warn("approval handler failed for '{}', so the call is denied: {}", tool.name(), e.toString());
      return false;
    }
  }
}
