package dev.rcrt.tools.internal.chain;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.tools.ToolChain;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolTrustPolicy;

/**
 * Asks the {@link ToolTrustPolicy} whether the caller may request the tool, and whether the tool's
 * breadcrumb (when resolution read it) was last written by someone it trusts. Tools found by name
 * are already filtered by discovery.
 */
final class TrustLink implements RealToolChain.Link {
  private final ToolTrustPolicy policy;
  private final Listeners listeners;

  TrustLink(ToolTrustPolicy policy, Listeners listeners) {
    this.policy = policy;
    this.listeners = listeners;
  }

  @Override
  public String name() {
    return "trust";
  }

  @Override
  public ToolResponse intercept(ToolChain chain) {
    CallState call = ((RealToolChain) chain).call();
    ToolDefinition tool = chain.tool();
    if (!policy.mayRequest(call.caller, tool)) {
      throw denied(chain, tool,
          "tool '" + tool.name() + "' was requested by " + call.caller.wire() + ", and the trust policy runs requests"
              + " only from the host and agents; it was not run");
    }
    Breadcrumb source = call.source;
    if (source != null) {
      String untrusted = policy.whyUntrusted(source);
      if (untrusted != null) {
        throw denied(chain, tool, "tool '" + tool.name() + "' (breadcrumb '" + source.id() + "') was not run: " + untrusted);
      }
    }
    return chain.proceed(chain.request());
  }

  private ToolException denied(ToolChain chain, ToolDefinition tool, String message) {
    listeners.callDenied(chain.request(), tool, ToolErrorCode.TOOL_UNTRUSTED.code());
    return new ToolException(ToolErrorCode.TOOL_UNTRUSTED, message);
  }
}
