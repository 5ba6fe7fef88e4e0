package dev.rcrt.mcp.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.testing.TestClock;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.DefaultServerTransportSecurityValidator;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the transport keeps for clients that come back is bounded by count as well as by text: a
 * flood of small requests leaves at most the newest streams resumable, and a stream past the
 * resume window is gone even when nothing else happened since.
 */
class StreamableHttpBoundsTest {
  private final TestClock clock = new TestClock();
  private final HttpClient http = HttpClient.newHttpClient();
  private McpSyncServer server;
  private HttpListener listener;

  @BeforeEach
  void start() {
    StreamableHttp transport = new StreamableHttp(HttpListener.ENDPOINT,
        DefaultServerTransportSecurityValidator.builder().allowedHosts(List.of("127.0.0.1:*")).allowedOrigins(List.of()).build(), clock,
        Duration.ofSeconds(1), null, Duration.ofMinutes(1), new InMemoryBreadcrumbStore(), 3);
    server = McpServer.sync(transport).serverInfo("bounds", "1").build();
    listener = new HttpListener(transport, "127.0.0.1", 0, List.of(new JsonRpcBodyFilter()));
  }

  @AfterEach
  void stop() {
    server.close();
    listener.close();
  }

  @Test
  void onlyTheNewestStreamsThatEndedStayResumableAndNoneAfterTheWindow() throws Exception {
    String session = http.send(request(null).POST(HttpRequest.BodyPublishers.ofString(
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
            + "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}")).build(), HttpResponse.BodyHandlers.ofString())
        .headers().firstValue("Mcp-Session-Id").orElseThrow();
    List<String> primings = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      HttpResponse<String> pong = http.send(request(session).POST(HttpRequest.BodyPublishers.ofString(
          "{\"jsonrpc\":\"2.0\",\"id\":" + (10 + i) + ",\"method\":\"ping\"}")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(pong.body()).startsWith("id: ").contains("\"id\":" + (10 + i));
      primings.add(pong.body().lines().findFirst().orElseThrow().substring(4));
    }

    assertThat(resume(session, primings.get(0)).statusCode()).as("the oldest of 4, beyond the 3 kept").isEqualTo(404);
    HttpResponse<String> newest = resume(session, primings.get(3));
    assertThat(newest.statusCode()).isEqualTo(200);
    assertThat(newest.body()).contains("\"id\":13");

    clock.advance(StreamableHttp.RESUME_WINDOW.plusSeconds(1));
    assertThat(resume(session, primings.get(3)).statusCode()).as("past the window").isEqualTo(404);
  }

  private HttpResponse<String> resume(String session, String lastEventId) throws Exception {
    return http.send(request(session).header("Last-Event-ID", lastEventId).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpRequest.Builder request(String session) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(listener.uri().toString()))
        .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream");
    return session == null ? b : b.header("Mcp-Session-Id", session);
  }
}
