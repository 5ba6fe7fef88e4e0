package dev.rcrt.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.postgres.TestPostgres;
import dev.rcrt.testing.LogWaits;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MCP sessions and call streams are the store's, not a process's: {@code ./rcrt mcp serve --http} on
 * PostgreSQL is SIGKILLed after a client initialized, and another process on the same store serves
 * the client's next request under the same {@code Mcp-Session-Id}; a call's stream closed by one
 * process's SSE polling is resumed with {@code Last-Event-ID} from another, which sends the answer
 * the first process gave.
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

  @Test
  void aCallsStreamClosedByOneProcessIsResumedFromAnotherWithTheFirstOnesAnswer() throws Exception {
    String store = TestPostgres.storeUrl(TestPostgres.freshSchema());
    HttpClient http = HttpClient.newHttpClient();
    Process first = serve(store, dir.resolve("first.log"), "--sse-polling", "1s");
    Process second = null;
    try {
      String firstUrl = url(first, dir.resolve("first.log"));
      second = serve(store, dir.resolve("second.log"), "--sse-polling", "1s");
      String secondUrl = url(second, dir.resolve("second.log"));
      HttpResponse<String> init = http.send(request(firstUrl, null).POST(HttpRequest.BodyPublishers.ofString(
          "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
              + "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}")).build(), HttpResponse.BodyHandlers.ofString());
      String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
      // test_reconnection answers after 4 s; the first process closes the call's connection after 1 s, before the answer
      HttpResponse<java.util.stream.Stream<String>> call = http.send(request(firstUrl, session).POST(HttpRequest.BodyPublishers.ofString(
          "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"test_reconnection\",\"arguments\":{}}}")).build(),
          HttpResponse.BodyHandlers.ofLines());
      List<String> onFirst;
      try (java.util.stream.Stream<String> lines = call.body()) {
        onFirst = lines.toList(); // up to the close
      }
      assertThat(onFirst).as("the first connection ends before the answer").noneMatch(l -> l.contains("\"result\""));
      String lastId = onFirst.stream().filter(l -> l.startsWith("id: ")).reduce((a, b) -> b).orElseThrow().substring(4);

      HttpResponse<String> resumed = http.send(request(secondUrl, session).header("Last-Event-ID", lastId).GET().build(),
          HttpResponse.BodyHandlers.ofString()); // the second process holds the connection until the answer, or 1 s
      for (int polls = 0; !resumed.body().contains("\"result\"") && polls < 60; polls++) {
        assertThat(resumed.statusCode()).as(resumed.body()).isEqualTo(200);
        Matcher last = Pattern.compile("(?m)^id: (\\S+)$").matcher(resumed.body());
        while (last.find()) {
          lastId = last.group(1);
        }
        resumed = http.send(request(secondUrl, session).header("Last-Event-ID", lastId).GET().build(), HttpResponse.BodyHandlers.ofString());
      }
      assertThat(resumed.body()).contains("\"id\":2").contains("Reconnection test completed successfully");
    } finally {
      for (Process p : java.util.Arrays.asList(first, second)) {
        if (p != null) {
          p.destroy();
          p.waitFor();
        }
      }
    }
  }

  private static Process serve(String store, Path log, String... more) throws Exception {
    List<String> args = new java.util.ArrayList<>(List.of("dev.rcrt.cli.Main", "mcp", "serve", "--http", "127.0.0.1:0", "--store", store,
        "--breadcrumbs", "../examples/mcp-conformance/breadcrumbs"));
    args.addAll(List.of(more));
    return TestJvm.start(List.of(), args, log);
  }

  private static String url(Process p, Path log) throws Exception {
    LogWaits.until(log, "MCP server listening on", p, Duration.ofSeconds(120));
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
