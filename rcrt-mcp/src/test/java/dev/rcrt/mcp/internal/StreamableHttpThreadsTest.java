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
 * The thread that sends an answer is the one the handler ran on: a thread of the transport's own,
 * never a Reactor worker whose task Reactor may cancel with an interrupt; and whatever that
 * thread's state, the client gets its answer whole.
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
    // a handler that fails at once: Reactor's subscribeOn cancels such a task, interrupting it mid-answer, when the
    // receiving thread stores the task's future after the handler failed
    McpServerFeatures.SyncToolSpecification failing = McpServerFeatures.SyncToolSpecification.builder()
        .tool(McpSchema.Tool.builder().name("failing").description("fails at once, telling its thread")
            .inputSchema(Map.of("type", "object")).build())
        .callHandler((exchange, request) -> {
          throw new io.modelcontextprotocol.spec.McpError(new McpSchema.JSONRPCResponse.JSONRPCError(-32602, "refused on "
              + Thread.currentThread().getName(), null));
        }).build();
    fixture = new TransportFixture(new TestClock(), new InMemoryBreadcrumbStore(), 10, spec -> spec.tools(interrupted, failing));
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

  @Test
  void aHandlerRunsOnTheTransportsOwnThreadSoNoSchedulerCancelsItMidAnswer() throws Exception {
    String session = fixture.initialize();
    HttpResponse<String> answer = fixture.http.send(fixture.request(session).POST(HttpRequest.BodyPublishers.ofString(
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"failing\",\"arguments\":{}}}")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(answer.body()).contains("\"id\":7").contains("refused on rcrt-mcp-request-").doesNotContain("boundedElastic");
  }

  @Test
  void aRequestBeyondTheHandlersAndTheirQueueIsAnsweredBusyAndTheOthersGoOn() throws Exception {
    java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    McpServerFeatures.SyncToolSpecification blocking = McpServerFeatures.SyncToolSpecification.builder()
        .tool(McpSchema.Tool.builder().name("blocking").description("waits until the test releases it")
            .inputSchema(Map.of("type", "object")).build())
        .callHandler((exchange, request) -> {
          started.countDown();
          try {
            release.await(60, java.util.concurrent.TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return McpSchema.CallToolResult.builder().addTextContent("answered").build();
        }).build();
    // one handler thread and one place in its queue
    try (TransportFixture small = new TransportFixture(new TestClock(), new InMemoryBreadcrumbStore(), 10, 1, 1, spec -> spec.tools(blocking))) {
      String session = small.initialize();
      java.util.function.IntFunction<HttpRequest> call = id -> small.request(session).POST(HttpRequest.BodyPublishers.ofString(
          "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"blocking\",\"arguments\":{}}}")).build();
      var running = small.http.sendAsync(call.apply(1), HttpResponse.BodyHandlers.ofString());
      assertThat(started.await(60, java.util.concurrent.TimeUnit.SECONDS)).as("the first call runs").isTrue();
      var queued = small.http.sendAsync(call.apply(2), HttpResponse.BodyHandlers.ofString());
      long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
      while (small.transport.waitingForAHandler() < 1) {
        assertThat(System.nanoTime()).as("the second call waits for the handler").isLessThan(deadline);
        Thread.sleep(10);
      }

      HttpResponse<String> refused = small.http.send(call.apply(3), HttpResponse.BodyHandlers.ofString());
      assertThat(refused.statusCode()).isEqualTo(200);
      assertThat(refused.body()).contains("\"id\":3").contains("the MCP server is busy").contains("\"code\":-32603");

      release.countDown();
      assertThat(running.get(60, java.util.concurrent.TimeUnit.SECONDS).body()).contains("\"id\":1").contains("answered");
      assertThat(queued.get(60, java.util.concurrent.TimeUnit.SECONDS).body()).contains("\"id\":2").contains("answered");
    }
  }
}
