package dev.rcrt.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.mcp.McpClientSession;
import dev.rcrt.mcp.McpServerAddress;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code ./rcrt mcp serve} on stdio, started as an MCP client starts it (a child process), used through the SDK's client. */
class McpServeStdioTest {
  @Test
  void aClientThatStartsTheServerListsAndCallsItsTools() {
    List<String> command = List.of(ProcessHandle.current().info().command().orElse("java"), "-cp", System.getProperty("java.class.path"),
        "dev.rcrt.cli.Main", "mcp", "serve", "--breadcrumbs", "../examples/mcp-conformance/breadcrumbs");
    try (McpClientSession session = McpClientSession.connect(McpServerAddress.command(command), Duration.ofSeconds(60), t -> {})) {
      assertThat(session.serverInfo().name()).isEqualTo("rcrt");
      assertThat(session.listTools()).extracting(McpSchema.Tool::name).contains("calculator", "test_simple_text");
      McpSchema.CallToolResult result = session.call("calculator", Map.of("expression", "17 * 23"));
      assertThat(result.isError()).isFalse();
      assertThat(((McpSchema.TextContent) result.content().get(0)).text()).contains("391");
      McpSchema.CallToolResult text = session.call("test_simple_text", Map.of());
      assertThat(((McpSchema.TextContent) text.content().get(0)).text()).isEqualTo("This is a simple text response for testing.");
    }
  }

  @Test
  void theServerSaysNothingBeforeItAnswersInitialize() throws Exception {
    Process p = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-cp", System.getProperty("java.class.path"),
        "dev.rcrt.cli.Main", "mcp", "serve").redirectError(ProcessBuilder.Redirect.DISCARD).start();
    try (var out = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(), java.nio.charset.StandardCharsets.UTF_8));
        var in = new java.io.PrintWriter(p.getOutputStream(), true, java.nio.charset.StandardCharsets.UTF_8)) {
      in.println("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
          + "\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}");
      String first = out.readLine();
      assertThat(first).as("the first line the server writes").contains("\"id\":1").contains("\"result\"").doesNotContain("notifications/");
      in.println("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
      in.println("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
      String listed = out.readLine();
      assertThat(listed).contains("\"id\":2").contains("\"calculator\"").contains("\"breadcrumb-search\"");
    } finally {
      p.destroyForcibly().waitFor();
    }
  }
}
