package dev.rcrt.tools.internal.chain;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.ValidationException;
import dev.rcrt.tools.ToolChain;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolDiscovery;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolResponse;
import java.util.stream.Collectors;

/**
 * Resolves the tool exactly once and pins it: a definition the caller pinned (or a stored request
 * names by {@code tool_id} and {@code tool_version}) runs only while its breadcrumb is still at
 * that version; otherwise the newest trusted tool with the requested name.
 */
final class ResolveLink implements RealToolChain.Link {
  private final BreadcrumbStore store;
  private final ToolDiscovery discovery;
  private final Listeners listeners;

  ResolveLink(BreadcrumbStore store, ToolDiscovery discovery, Listeners listeners) {
    this.store = store;
    this.discovery = discovery;
    this.listeners = listeners;
  }

  @Override
  public String name() {
    return "resolve";
  }

  @Override
  public ToolResponse intercept(ToolChain chain) {
    CallState call = ((RealToolChain) chain).call();
    String name = chain.request().tool();
    ToolDefinition tool;
    if (call.pinned != null) {
      call.source = current(name, call.pinned.sourceId(), call.pinned.sourceVersion());
      tool = call.pinned;
    } else if (call.pinnedId != null) {
      Breadcrumb source = current(name, call.pinnedId, call.pinnedVersion);
      try {
        tool = ToolDefinition.fromBreadcrumb(source);
      } catch (ValidationException e) {
        throw new ToolException(ToolErrorCode.TOOL_DEFINITION_INVALID, e.getMessage());
      }
      call.source = source;
    } else {
      try {
        tool = discovery.find(name).orElseThrow(() -> notFound(name));
      } catch (ValidationException e) {
        throw new ToolException(ToolErrorCode.TOOL_DEFINITION_INVALID, e.getMessage());
      }
    }
    if (!tool.name().equals(name)) {
      throw new ToolException(
          ToolErrorCode.TOOL_CHANGED, "the request names tool '" + name + "' but pins breadcrumb '" + tool.sourceId() + "', which is tool '" + tool.name() + "'");
    }
    call.tool = tool;
    listeners.toolResolved(chain.request(), tool);
    return chain.proceed(chain.request());
  }

  private Breadcrumb current(String name, String id, long version) {
    Breadcrumb now =
        store.get(id)
            .orElseThrow(
                () -> new ToolException(
                    ToolErrorCode.TOOL_NOT_FOUND, "tool '" + name + "' (breadcrumb '" + id + "') no longer exists; it was not run"));
    if (now.version() != version) {
      throw new ToolException(
          ToolErrorCode.TOOL_CHANGED,
          "tool '" + name + "' changed after it was offered (breadcrumb '" + id + "' was version " + version
              + ", is now " + now.version() + "); it was not run. Ask again to use the current version");
    }
    return now;
  }

  private ToolException notFound(String name) {
    var untrusted = discovery.whyUntrusted(name);
    if (untrusted.isPresent()) {
      return new ToolException(ToolErrorCode.TOOL_UNTRUSTED, untrusted.get());
    }
    String available = discovery.discover().items().stream().map(ToolDefinition::name).collect(Collectors.joining(", "));
    return new ToolException(ToolErrorCode.TOOL_NOT_FOUND, "no tool named '" + name + "'; available tools: " + available);
  }
}
