package dev.rcrt.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import dev.rcrt.tools.ToolTrustPolicy;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The MCP runtime's own bounds (issue 36, lower findings): waiting for a server to start ends with
 * the call's time limit, not the 60 s start limit, and a closed runtime starts nothing.
 */
class McpRuntimeBoundsTest {
  private final InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().eventExecutor(Runnable::run).build();

  /** A tool whose server is a program that never answers MCP's initialize: it just waits. */
  private void defineSilentServerTool(long timeoutMs) {
    store.create(BreadcrumbCreate.builder("tool.v1", "silent").context(RcrtJson.parse("""
        {"name":"silent","limits":{"timeout_ms":%d},
         "implementation":{"type":"mcp","tool":"anything","server":{"command":["sleep","120"]}}}""".formatted(timeoutMs))).build());
  }

  @Test
  @Timeout(value = 40, unit = TimeUnit.SECONDS)
  void aServerThatNeverStartsEndsTheCallAtItsTimeLimitNotAtTheStartLimit() {
    defineSilentServerTool(1_500);
    McpToolRuntime mcp = new McpToolRuntime();
    try (ToolRunner runner = ToolRunner.builder(store).runtime(mcp).trustPolicy(ToolTrustPolicy.builder().allowCommands("sleep").build()).build()) {
      ToolResponse r = runner.call(ToolRequest.of("silent", RcrtJson.object(), "test"));
      assertThat(r.errorCode()).as(r.error()).isIn("tool_timeout", "tool_failed");
    }
  }

  @Test
  @Timeout(value = 40, unit = TimeUnit.SECONDS)
  void aClosedRuntimeStartsNoServer() {
    defineSilentServerTool(10_000);
    McpToolRuntime mcp = new McpToolRuntime();
    try (ToolRunner runner = ToolRunner.builder(store).runtime(mcp).trustPolicy(ToolTrustPolicy.builder().allowCommands("sleep").build()).build()) {
      java.util.Set<Long> before = sleepers();
      mcp.close();
      ToolResponse r = runner.call(ToolRequest.of("silent", RcrtJson.object(), "test"));
      assertThat(r.errorCode()).isEqualTo("tool_failed");
      assertThat(r.error()).contains("the MCP runtime is closed");
      assertThat(sleepers()).as("no server process was started").isSubsetOf(before);
    }
  }

  /** The {@code sleep} processes this JVM started (another test's server may still be stopping). */
  private static java.util.Set<Long> sleepers() {
    return ProcessHandle.current().descendants().filter(p -> p.info().command().orElse("").endsWith("sleep")).map(ProcessHandle::pid)
        .collect(java.util.stream.Collectors.toSet());
  }
}
