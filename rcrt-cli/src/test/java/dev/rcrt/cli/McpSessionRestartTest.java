package dev.rcrt.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.postgres.TestPostgres;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An MCP session outlives its server process: {@code ./rcrt mcp serve --http} on PostgreSQL is
 * SIGKILLed after a client initialized, another process on the same store serves the client's
 * next request under the same {@code Mcp-Session-Id}.
 */
class McpSessionRestartTest {
  private static final Pattern LISTENING = Pattern.compile("MCP server listening on (http://\\S+/mcp)");

  @TempDir Path dir;

  @Test
  void aSessionIsTakenUpByTheNextProcessAfterASigkill() throws Exception {
    String store = TestPostgres.storeUrl(TestPostgres.freshSchema());
    HttpClient http = HttpClient.newHttpClient();
    Process first = serve(store, dir.resolve("first.log"));
    String session;
    try {
      HttpResponse<String> init = http.send(request(url(first, dir.resolve("first.log")), null).POST(HttpRequest.BodyPublishers.ofString(
          "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
              + "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(init.statusCode()).isEqualTo(200);
      session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
    } finally {
      first.destroyForcibly(); // SIGKILL
      first.waitFor();
    }

    Process second = serve(store, dir.resolve("second.log"));
    try {
      HttpResponse<String> listed = http.send(request(url(second, dir.resolve("second.log")), session).POST(HttpRequest.BodyPublishers.ofString(
          "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{}}")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(listed.statusCode()).as(listed.body()).isEqualTo(200);
      assertThat(listed.body()).contains("\"id\":2").contains("test_simple_text");
    } finally {
      second.destroy();
      second.waitFor();
    }
  }

  private static Process serve(String store, Path log) throws Exception {
    return TestJvm.start(List.of(), List.of("dev.rcrt.cli.Main", "mcp", "serve", "--http", "127.0.0.1:0", "--store", store,
        "--breadcrumbs", "../examples/mcp-conformance/breadcrumbs"), log);
  }

  private static String url(Process p, Path log) throws Exception {
    TestJvm.await(log, "MCP server listening on", p, 120);
    Matcher m = LISTENING.matcher(Files.readString(log));
    assertThat(m.find()).isTrue();
    return m.group(1);
  }

  private static HttpRequest.Builder request(String url, String session) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream").header("MCP-Protocol-Version", "2025-11-25");
    return session == null ? b : b.header("Mcp-Session-Id", session);
  }
}
