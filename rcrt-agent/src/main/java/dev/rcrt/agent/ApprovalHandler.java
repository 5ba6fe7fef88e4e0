package dev.rcrt.agent;

import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolRequest;

/**
 * Decides whether a tool call that needs approval may run: a tool whose breadcrumb says {@code
 * requires_approval: true}, or one the host's policy selects ({@link
 * AgentExecutor.Builder#approvalPolicy}). A denied call is not run; the model is told it was not
 * approved, and a {@code tool.response.v1} with {@code error_code: "tool_denied"} is recorded.
 *
 * <p>Called on a tool-call thread; may block (for example while a person decides) up to the
 * host's own limits. Must be thread-safe.
 */
@FunctionalInterface
public interface ApprovalHandler {
  /**
   * @param request the call, with its input; the request is not yet recorded
   * @param tool the tool's definition
   * @return true to run it
   */
  boolean approve(ToolRequest request, ToolDefinition tool);
}
