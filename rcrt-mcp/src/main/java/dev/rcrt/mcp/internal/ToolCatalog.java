package dev.rcrt.mcp.internal;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.LoadReport;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolRunner;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps an MCP server's tool list equal to what the runner discovers: the tools whose records the
 * trust policy trusts, read live from the store. Every change to a tool record (create, update,
 * delete) re-reads the tools and adds, replaces or removes what changed; the SDK then sends {@code
 * notifications/tools/list_changed} to the connected clients. Thread-safe.
 */
public final class ToolCatalog implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ToolCatalog.class);

  private final ToolRunner runner;
  private final ToolCalls calls;
  private final Map<String, String> offered = new HashMap<>(); // name -> record id @ version
  private final List<Subscription> watching = new ArrayList<>();
  private @Nullable McpSyncServer server; // until attach

  public ToolCatalog(ToolRunner runner, ToolCalls calls) {
    this.runner = runner;
    this.calls = calls;
  }

  /**
   * The tools to build the server with, so that its first list holds them without a {@code
   * notifications/tools/list_changed} for each (a client must hear none before its {@code
   * initialize} is answered).
   */
  public synchronized List<McpServerFeatures.SyncToolSpecification> initial() {
    List<McpServerFeatures.SyncToolSpecification> specs = new ArrayList<>();
    for (ToolDefinition t : discovered().values()) {
      specs.add(spec(t));
      offered.put(t.name(), t.sourceId() + "@" + t.sourceVersion());
    }
    return specs;
  }

  /** Follows the store from now on: a change to a tool record updates {@code server}'s list. */
  public synchronized void attach(McpSyncServer server) {
    this.server = server;
    for (String schema : ToolDefinition.TOOL_SCHEMAS) {
      watching.add(runner.store().subscribe(Selector.schema(schema), e -> sync()));
    }
    sync(); // what changed between initial() and the subscriptions
  }

  /** Re-reads the tools and updates the server's list where it differs. */
  public synchronized void sync() {
    McpSyncServer server = this.server;
    if (server == null) {
      return;
    }
    Map<String, ToolDefinition> now = discovered();
    for (String name : List.copyOf(offered.keySet())) {
      ToolDefinition t = now.get(name);
      if (t == null || !(t.sourceId() + "@" + t.sourceVersion()).equals(offered.get(name))) {
        server.removeTool(name);
        offered.remove(name);
      }
    }
    for (ToolDefinition t : now.values()) {
      if (!offered.containsKey(t.name())) {
        server.addTool(spec(t));
        offered.put(t.name(), t.sourceId() + "@" + t.sourceVersion());
      }
    }
  }

  /** The trusted tools whose names MCP allows, by name. */
  private Map<String, ToolDefinition> discovered() {
    LoadReport<ToolDefinition> found = runner.discovery().discover();
    Map<String, ToolDefinition> now = new java.util.TreeMap<>();
    for (ToolDefinition t : found.items()) {
      if (!McpTools.nameAllowed(t.name())) {
        LOG.warn("tool '{}' is not offered over MCP: MCP tool names are 1 to 128 letters, digits, '_', '-' or '.'", t.name());
        continue;
      }
      now.put(t.name(), t);
    }
    return now;
  }

  private McpServerFeatures.SyncToolSpecification spec(ToolDefinition t) {
    String title = runner.store().get(t.sourceId()).map(Breadcrumb::title).orElse(null);
    return McpServerFeatures.SyncToolSpecification.builder()
        .tool(McpTools.of(t, title))
        .callHandler((exchange, request) -> calls.call(exchange, request, t))
        .build();
  }

  @Override
  public synchronized void close() {
    watching.forEach(Subscription::close);
    watching.clear();
  }
}
