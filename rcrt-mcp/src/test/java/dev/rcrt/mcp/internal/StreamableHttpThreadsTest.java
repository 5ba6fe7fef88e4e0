package dev.rcrt.mcp.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.testing.TestClock;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.DefaultServerTransportSecurityValidator;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The thread that sends an answer is whichever thread the handler ran on (a Reactor worker shared
 * with everything else in the process); its state is no reason to lose the client's answer.
 */
class StreamableHttpThreadsTest {
  private final HttpClient http = HttpClient.newHttpClient();
  private McpSyncServer server;
  private HttpListener listener;

  @BeforeEach
  void start() {
    StreamableHttp transport = new StreamableHttp(HttpListener.ENDPOINT,
        DefaultServerTransportSecurityValidator.builder().allowedHosts(List.of("127.0.0.1:*")).allowedOrigins(List.of()).build(), new TestClock(),
        Duration.ofSeconds(1), null, Duration.ofMinutes(1), new InMemoryBreadcrumbStore(), 3);
    // a worker left with a stray interrupt: a Future.cancel(true) of the task it ran before lost the race with that task's end
    McpServerFeatures.SyncToolSpecification interrupted = McpServerFeatures.SyncToolSpecification.builder()
        .tool(McpSchema.Tool.builder().name("interrupted").description("answers with its thread's interrupt flag set")
            .inputSchema(Map.of("type", "object")).build())
        .callHandler((exchange, request) -> {
          Thread.currentThread().interrupt();
          return McpSchema.CallToolResult.builder().addTextContent("answered").build();
        }).build();
    server = McpServer.sync(transport).serverInfo("threads", "1").tools(interrupted).build();
    listener = new HttpListener(transport, "127.0.0.1", 0, List.of(new JsonRpcBodyFilter()));
  }

  @AfterEach
  void stop() {
    server.close();
    listener.close();
  }

  @Test
  void anAnswerSentOnAThreadWhoseInterruptFlagIsSetReachesTheClientWhole() throws Exception {
    String session = http.send(request(null).POST(HttpRequest.BodyPublishers.ofString(
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
            + "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}")).build(), HttpResponse.BodyHandlers.ofString())
        .headers().firstValue("Mcp-Session-Id").orElseThrow();
    for (int i = 0; i < 3; i++) { // the same connection, kept alive, serves the next call too
      HttpResponse<String> answer = http.send(request(session).POST(HttpRequest.BodyPublishers.ofString(
          "{\"jsonrpc\":\"2.0\",\"id\":" + (10 + i) + ",\"method\":\"tools/call\",\"params\":{\"name\":\"interrupted\",\"arguments\":{}}}")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(answer.statusCode()).isEqualTo(200);
      assertThat(answer.body()).contains("\"id\":" + (10 + i)).contains("answered");
    }
  }

  private HttpRequest.Builder request(String session) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(listener.uri().toString()))
        .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream");
    return session == null ? b : b.header("Mcp-Session-Id", session);
  }
}
