package dev.rcrt.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** At the default level the command line prints no library's INFO lines, whatever logging API the library uses. */
class QuietLogsTest {
  @TempDir Path dir;

  @Test
  void mcpServeOverHttpPrintsOnlyItsOwnLine() throws Exception {
    Path log = dir.resolve("serve.log");
    Process serve = TestJvm.start(List.of(), List.of("dev.rcrt.cli.Main", "mcp", "serve", "--http", "127.0.0.1:0"), log);
    try {
      TestJvm.await(log, "MCP server listening on", serve, 120);
      String printed = Files.readString(log);
      // Tomcat logs its start at INFO through java.util.logging
      assertThat(printed).doesNotContain("INFO").doesNotContain("org.apache.catalina").doesNotContain("Starting service");
    } finally {
      serve.destroyForcibly().waitFor();
    }
  }
}
