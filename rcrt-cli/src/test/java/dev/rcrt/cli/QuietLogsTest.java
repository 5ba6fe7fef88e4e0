package dev.rcrt.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.testing.LogWaits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * At the default level the command line prints no library's INFO lines, whatever logging API the
 * library uses; with {@code -v} every command prints the stack trace behind a failure, scrubbed of
 * secrets, also where the failure is a tool's response rather than an exception of the command.
 */
class QuietLogsTest {
  @TempDir Path dir;

  @Test
  void mcpServeOverHttpPrintsOnlyItsOwnLine() throws Exception {
    Path log = dir.resolve("serve.log");
    Process serve = TestJvm.start(List.of(), List.of("dev.rcrt.cli.Main", "mcp", "serve", "--http", "127.0.0.1:0"), log);
    try {
      LogWaits.until(log, "MCP server listening on", serve, Duration.ofSeconds(120));
      String printed = Files.readString(log);
      // Tomcat logs its start at INFO through java.util.logging
      assertThat(printed).doesNotContain("INFO").doesNotContain("org.apache.catalina").doesNotContain("Starting service");
    } finally {
      serve.destroyForcibly().waitFor();
    }
  }

  @Test
  void verboseToolCallPrintsTheCauseOfAFailedCallScrubbedAndQuietDoesNot() throws Exception {
    Path defs = dir.resolve("down.json");
    Files.writeString(defs, """
        {"schema_name":"tool.v1","title":"Down","context":{"name":"down","input_schema":{"type":"object"},
         "implementation":{"type":"http","endpoint":"http://127.0.0.1:9/nothing-listens"}}}
        """);
    Path verbose = dir.resolve("verbose.log");
    Path quiet = dir.resolve("quiet.log");
    List<String> call = List.of("dev.rcrt.cli.Main", "tool", "call", "down", "--breadcrumbs", defs.toString(), "--allow-network", "127.0.0.0/8");
    List<String> withV = new java.util.ArrayList<>(call);
    withV.add("-v");
    Process v = TestJvm.start(List.of(), withV, verbose);
    Process q = TestJvm.start(List.of(), call, quiet);
    assertThat(v.waitFor()).isEqualTo(1);
    assertThat(q.waitFor()).isEqualTo(1);
    String loud = Files.readString(verbose);
    String plain = Files.readString(quiet);
    assertThat(loud).contains("[tool_unreachable]").contains("its cause, scrubbed").contains("\tat java.net.");
    assertThat(plain).contains("[tool_unreachable]").doesNotContain("\tat ");
  }

  @Test
  void verboseShowsWhereABuiltinToolFailedAndTheStepsOfASuccessfulTurn() throws Exception {
    Path failed = dir.resolve("calculator.log");
    Path turn = dir.resolve("chat.log");
    Process calc = TestJvm.start(List.of(), List.of("dev.rcrt.cli.Main", "tool", "call", "calculator", "{\"expression\":\"1/0\"}", "-v"), failed);
    Process chat = TestJvm.start(List.of(), List.of("dev.rcrt.cli.Main", "chat", "-v", "what is 2+3*4"), turn);
    assertThat(calc.waitFor()).isEqualTo(1);
    assertThat(chat.waitFor()).isEqualTo(0);
    assertThat(Files.readString(failed)).contains("[tool_failed]").contains("java.lang.ArithmeticException: Division by zero")
        .contains("\tat dev.rcrt.tools.internal.builtin.Calculator.execute");
    assertThat(Files.readString(turn))
        .contains("round 1: asking model").contains("answered with calls to [calculator]")
        .contains("call 'calculator'").contains("round 2: 'offline-demo' answered with text").contains("ended success")
        .contains("The answer is 14");
  }
}
