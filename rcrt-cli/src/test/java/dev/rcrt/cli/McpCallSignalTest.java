package dev.rcrt.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.mcp.McpToolServer;
import dev.rcrt.tools.ToolRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./rcrt mcp call} stopped by SIGTERM while the server's tool still works ends by the
 * signal with one line on stderr: no stack trace (the MCP SDK logs an interrupted graceful close
 * with one) and no Java exception name.
 */
class McpCallSignalTest {
  @TempDir Path dir;

  @Test
  void aSigtermWhileTheServerWorksEndsTheCallWithOneLine() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    InMemoryBreadcrumbStore store = new InMemoryBreadcrumbStore();
    store.create(BreadcrumbCreate.builder("tool.definition.v1", "slow")
        .context(RcrtJson.parse("{\"name\":\"slow\",\"description\":\"answers when the test lets it\"}")).build());
    try (ToolRunner runner = ToolRunner.builder(store).handler("slow", (in, ctx) -> {
          started.countDown();
          finish.await(60, TimeUnit.SECONDS);
          return RcrtJson.object();
        }).build();
        McpToolServer server = McpToolServer.builder(runner).http("127.0.0.1", 0, null)) {
      Path log = dir.resolve("call.log");
      Process p = TestJvm.start(List.of(), List.of("dev.rcrt.cli.Main", "mcp", "call", Objects.requireNonNull(server.uri()).toString(), "slow"), log);
      try {
        assertThat(started.await(60, TimeUnit.SECONDS)).as("the call reached the tool: %s", Files.readString(log)).isTrue();
        p.destroy(); // SIGTERM
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      } finally {
        finish.countDown();
        p.destroyForcibly();
      }
      String out = Files.readString(log);
      assertThat(p.exitValue()).as(out).isEqualTo(128 + 15);
      assertThat(out).contains("could not run tool 'slow'").doesNotContain("\tat ", "Exception", "java.");
    }
  }
}
