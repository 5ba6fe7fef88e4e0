package dev.rcrt.tools;

/**
 * Decides whether a tool call that needs approval may run: a tool whose breadcrumb says {@code
 * requires_approval: true}, or one the host's policy selects ({@link
 * ToolRunner.Builder#approvalPolicy}). Approval is a link of the {@link ToolRunner}'s chain, so it
 * holds on every path: direct calls, agents, listeners in event mode, the CLI.
 *
 * <p>A denied call does not run and never can: it is recorded as a {@code tool.response.v1} with
 * {@code error_code: "tool_denied"}, and a runner asked to run that request again returns the
 * recorded denial. Without a handler, calls that need approval are denied.
 *
 * <p>Called on the calling thread before the tool's deadline starts; may block (for example while
 * a person decides) up to the host's own limits. A handler that throws denies the call. Must be
 * thread-safe.
 */
@FunctionalInterface
public interface ApprovalHandler {
  /**
   * @param request the call, with its input (a copy; changing it changes nothing)
   * @param tool the resolved definition that would run
   * @return true to run it
   */
  boolean approve(ToolRequest request, ToolDefinition tool);
}
