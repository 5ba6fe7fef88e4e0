package dev.rcrt.mcp.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.testing.TestClock;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The thread that sends an answer is whichever thread the handler ran on (a Reactor worker shared
 * with everything else in the process); its state is no reason to lose the client's answer.
 */
class StreamableHttpThreadsTest {
  private TransportFixture fixture;

  @BeforeEach
  void start() {
    // a worker left with a stray interrupt: a Future.cancel(true) of the task it ran before lost the race with that task's end
    McpServerFeatures.SyncToolSpecification interrupted = McpServerFeatures.SyncToolSpecification.builder()
        .tool(McpSchema.Tool.builder().name("interrupted").description("answers with its thread's interrupt flag set")
            .inputSchema(Map.of("type", "object")).build())
        .callHandler((exchange, request) -> {
          Thread.currentThread().interrupt();
          return McpSchema.CallToolResult.builder().addTextContent("answered").build();
        }).build();
    fixture = new TransportFixture(new TestClock(), new InMemoryBreadcrumbStore(), 10, spec -> spec.tools(interrupted));
  }

  @AfterEach
  void stop() {
    fixture.close();
  }

  @Test
  void anAnswerSentOnAThreadWhoseInterruptFlagIsSetReachesTheClientWhole() throws Exception {
    String session = fixture.initialize();
    for (int i = 0; i < 3; i++) { // the same connection, kept alive, serves the next call too
      HttpResponse<String> answer = fixture.http.send(fixture.request(session).POST(HttpRequest.BodyPublishers.ofString(
          "{\"jsonrpc\":\"2.0\",\"id\":" + (10 + i) + ",\"method\":\"tools/call\",\"params\":{\"name\":\"interrupted\",\"arguments\":{}}}")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(answer.statusCode()).isEqualTo(200);
      assertThat(answer.body()).contains("\"id\":" + (10 + i)).contains("answered");
    }
  }
}
