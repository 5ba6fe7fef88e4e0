package dev.rcrt.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.ToolRunner;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
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
    CountDownLatch release = new CountDownLatch(1);
    try (ToolRunner runner = ToolRunner.builder(store).build();
        McpToolServer server = McpToolServer.builder(runner).http("127.0.0.1", 0, null);
        McpClientSession client = McpClientSession.connect(McpServerAddress.url(server.uri().toString()), Duration.ofSeconds(60), tools -> {})) {
      int workers = ForkJoinPool.commonPool().getParallelism();
      CountDownLatch blocked = new CountDownLatch(workers);
      for (int i = 0; i < workers; i++) {
        ForkJoinPool.commonPool().execute(() -> {
          blocked.countDown();
          try {
            release.await(); // a host's blocking work, as parallel streams or supplyAsync without an executor do
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
      }
      assertThat(blocked.await(30, TimeUnit.SECONDS)).as("every worker of the common pool is blocked").isTrue();
      // before: the answer waited for a worker of the common pool, so the call ran out its 60 s limit
      assertTimeoutPreemptively(Duration.ofSeconds(30), () ->
          assertThat(RcrtJson.write(RcrtJson.toTree(client.call("calculator", Map.of("expression", "6 * 7")).structuredContent())))
              .contains("42"));
    } finally {
      release.countDown();
    }
  }
}
