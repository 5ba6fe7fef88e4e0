package dev.rcrt.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.testing.BusyCommonPool;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.ToolRunner;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A host that keeps the common fork-join pool busy does not hold back its MCP client: the JDK's
 * {@code HttpClient.sendAsync} completes its future on that pool (always on JDK 25; on JDK 17 with
 * three or more cores), whatever the client's own executor, and the MCP SDK waits for each
 * response through that future.
 */
class McpBusyCommonPoolTest {
  @Test
  void aCallOverHttpIsAnsweredWhileEveryWorkerOfTheCommonPoolIsBlocked() throws Exception {
    InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().build();
    BuiltinTools.seed(store);
    try (ToolRunner runner = ToolRunner.builder(store).build();
        McpToolServer server = McpToolServer.builder(runner).http("127.0.0.1", 0, null);
        McpClientSession client = McpClientSession.connect(McpServerAddress.url(server.uri().toString()), Duration.ofSeconds(60), tools -> {});
        BusyCommonPool busy = BusyCommonPool.block(Duration.ofSeconds(30))) {
      // before: the answer waited for a worker of the common pool, so the call ran out its 60 s limit
      assertTimeoutPreemptively(Duration.ofSeconds(30), () ->
          assertThat(RcrtJson.write(RcrtJson.toTree(client.call("calculator", Map.of("expression", "6 * 7")).structuredContent())))
              .contains("42"));
    }
  }
}
