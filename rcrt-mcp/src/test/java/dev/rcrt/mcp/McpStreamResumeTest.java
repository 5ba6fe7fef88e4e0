package dev.rcrt.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.testing.TestClock;
import dev.rcrt.tools.ToolRunner;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Streamable HTTP's resumable streams, from the wire: every stream starts with a priming event
 * (an id, {@code retry}, empty data); with SSE polling the server closes a call's connection after
 * the hold, and the client's {@code GET} with {@code Last-Event-ID} gets the call's answer; only
 * the stream's own session may resume it, and only while it is kept. Time is the runner's
 * {@link TestClock}: the hold and the resume window pass when the test says so.
 */
class McpStreamResumeTest {
  private static final String END = "\u0000end";

  private final TestClock clock = new TestClock();
  private final CountDownLatch started = new CountDownLatch(1);
  private final CountDownLatch finish = new CountDownLatch(1);
  private final HttpClient http = HttpClient.newHttpClient();
  private InMemoryBreadcrumbStore store;
  private ToolRunner runner;
  private McpToolServer server;

  @BeforeEach
  void start() {
    store = InMemoryBreadcrumbStore.builder().clock(clock).build();
    store.create(BreadcrumbCreate.builder("tool.definition.v1", "slow")
        .context(RcrtJson.parse("{\"name\":\"slow\",\"description\":\"answers when the test lets it\"}")).build());
    runner = ToolRunner.builder(store).timeSource(clock).handler("slow", (in, ctx) -> {
      started.countDown();
      try {
        finish.await(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return RcrtJson.object().put("done", true);
    }).build();
    server = McpToolServer.builder(runner).ssePolling(Duration.ofSeconds(5), Duration.ofMillis(250)).http("127.0.0.1", 0, null);
  }

  @AfterEach
  void stop() {
    finish.countDown();
    server.close();
    runner.close();
  }

  @Test
  void aCallsStreamClosedByTheHoldIsResumedWithLastEventIdAndOnlyByItsOwnSessionWhileKept() throws Exception {
    String session = initialize();
    BlockingQueue<String> post = lines(post(session, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\",\"arguments\":{}}}"));
    List<String> priming = event(post);
    assertThat(priming).anySatisfy(l -> assertThat(l).matches("id: \\S+_0")).contains("retry: 250", "data: ");
    String primingId = priming.stream().filter(l -> l.startsWith("id: ")).findFirst().orElseThrow().substring(4);
    assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();

    // the hold passes while the call runs: the server closes the connection before the answer
    clock.advance(Duration.ofSeconds(6));
    assertThat(event(post)).as("the connection ends with no answer on it").containsExactly(END);
    finish.countDown();

    // another session cannot take the stream, nor can a made-up id
    String other = initialize();
    assertThat(get(other, primingId).statusCode()).isEqualTo(404);
    assertThat(get(session, "forged_0").statusCode()).isEqualTo(404);

    // its own session comes back with the last id it saw and gets the answer, then the stream ends
    JsonNode answer = answerOn(lines(get(session, primingId)));
    assertThat(answer.path("id").asInt()).isEqualTo(7);
    assertThat(answer.at("/result/structuredContent/done").asBoolean()).isTrue();

    // kept for the resume window after it ended, then forgotten
    assertThat(answerOn(lines(get(session, primingId))).path("id").asInt()).isEqualTo(7);
    clock.advance(Duration.ofMinutes(6));
    assertThat(get(session, primingId).statusCode()).isEqualTo(404);
  }

  @Test
  void aCallsStreamIsResumedFromAnotherServerOfTheSameStoreWhichFollowsItUntilTheAnswer() throws Exception {
    String session = initialize();
    String primingId = callClosedByTheHold(session);

    // the store keeps the stream under hashes: nothing in it names the stream or the session
    assertThat(store.search(dev.rcrt.core.Selector.schema("mcp.stream.event.v1"), 10, 0)).isNotEmpty().allSatisfy(r -> {
      assertThat(RcrtJson.write(r.context()) + r.id() + r.title() + r.tags()).doesNotContain(session).doesNotContain(streamOf(primingId));
      assertThat(r.isSecret()).as("never shown to a model or a tool, never embedded").isTrue();
    });

    // another process of the same store: the session's client comes back to it, and no one else may
    McpToolServer other = McpToolServer.builder(runner).ssePolling(Duration.ofSeconds(5), Duration.ofMillis(250)).http("127.0.0.1", 0, null);
    try {
      String stranger = initialize();
      assertThat(get(other, stranger, primingId).statusCode()).isEqualTo(404);
      assertThat(get(other, session, streamOf(primingId) + "_9").statusCode()).as("an event never sent").isEqualTo(404);
      BlockingQueue<String> resumed = lines(get(other, session, primingId));
      assertThat(event(resumed)).contains("id: " + primingId, "retry: 250");
      finish.countDown(); // the call answers in the first process, after the client went to the other
      // every event the first process sends, in its order and with its ids, up to the answer; then the end
      JsonNode data = null;
      for (int n = 1; data == null || !data.has("result"); n++) {
        List<String> e = event(resumed);
        assertThat(e).contains("id: " + streamOf(primingId) + "_" + n);
        data = RcrtJson.parse(e.stream().filter(l -> l.startsWith("data: ")).findFirst().orElseThrow().substring(6));
      }
      assertThat(data.path("id").asInt()).isEqualTo(7);
      assertThat(data.at("/result/structuredContent/done").asBoolean()).isTrue();
      assertThat(event(resumed)).as("the stream ends after its answer").containsExactly(END);
    } finally {
      other.close();
    }

    // the first process forgets the stream after the window, and its records with it
    clock.advance(Duration.ofMinutes(6));
    assertThat(get(server, session, primingId).statusCode()).isEqualTo(404);
    assertThat(store.search(dev.rcrt.core.Selector.schema("mcp.stream.event.v1"), 10, 0)).isEmpty();
  }

  @Test
  void anEventRecordAToolWroteIsNeverSentByAProcessThatFollowsTheStream() throws Exception {
    String session = initialize();
    String primingId = callClosedByTheHold(session);

    // a tool that could write the store, and knew both ids, forges the stream's next event: an answer of its own
    String stream = dev.rcrt.core.spi.ContentDigest.sha256Hex(streamOf(primingId)).substring(0, 32);
    String forged = "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"forged\"}]}}";
    store.create(BreadcrumbCreate.builder("mcp.stream.event.v1", "MCP stream event 1").id("mcp-stream-" + stream + "-1").tags("mcp:stream:" + stream)
        .createdBy("tool:forger").context(RcrtJson.object().put("session", dev.rcrt.core.spi.ContentDigest.sha256Hex(session).substring(0, 32))
            .put("seq", 1).put("last", true).put("data", forged)).build());

    McpToolServer other = McpToolServer.builder(runner).ssePolling(Duration.ofSeconds(5), Duration.ofMillis(250)).http("127.0.0.1", 0, null);
    try {
      BlockingQueue<String> resumed = lines(get(other, session, primingId));
      assertThat(event(resumed)).contains("id: " + primingId);
      clock.advance(Duration.ofSeconds(6)); // the other process's hold ends the connection
      List<String> rest = new ArrayList<>();
      for (List<String> e = event(resumed); !e.equals(List.of(END)); e = event(resumed)) {
        rest.addAll(e);
      }
      assertThat(rest).noneMatch(l -> l.contains("forged"));
    } finally {
      other.close();
    }
  }

  /** Calls the slow tool as request 7 and lets the hold close the call's connection before the answer; the priming event's id. */
  private String callClosedByTheHold(String session) throws Exception {
    BlockingQueue<String> post = lines(post(session, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\",\"arguments\":{}}}"));
    String primingId = event(post).stream().filter(l -> l.startsWith("id: ")).findFirst().orElseThrow().substring(4);
    assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
    clock.advance(Duration.ofSeconds(6));
    assertThat(event(post)).as("the connection ends with no answer on it").containsExactly(END);
    return primingId;
  }

  /** The stream of an event id, {@code <stream>_<n>}. */
  private static String streamOf(String eventId) {
    return eventId.substring(0, eventId.lastIndexOf('_'));
  }

  @Test
  void thisProjectsClientComesBackWithLastEventIdForTheAnswerOfAStreamClosedByTheHold() throws Exception {
    // the blocking call on a thread of its own: on the common fork-join pool (one worker on two cores) it held back, on JDK 25,
    // the MCP SDK's delivery of the call's own stream, which runs there
    java.util.concurrent.ExecutorService caller = java.util.concurrent.Executors.newSingleThreadExecutor();
    try (McpClientSession client = McpClientSession.connect(McpServerAddress.url(server.uri().toString()), Duration.ofSeconds(60), tools -> {})) {
      java.util.concurrent.CompletableFuture<io.modelcontextprotocol.spec.McpSchema.CallToolResult> called =
          java.util.concurrent.CompletableFuture.supplyAsync(() -> client.call("slow", Map.of()), caller);
      assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
      // the hold closes the call's stream; the answer comes after, so only a client that comes back gets it
      clock.advance(Duration.ofSeconds(6));
      finish.countDown();
      assertThat(RcrtJson.write(RcrtJson.toTree(called.get(30, TimeUnit.SECONDS).structuredContent()))).contains("\"done\":true");
    } finally {
      caller.shutdownNow();
    }
  }

  @Test
  void thisProjectsClientKeepsListeningAfterTheHoldClosesItsListeningStream() throws Exception {
    BlockingQueue<List<io.modelcontextprotocol.spec.McpSchema.Tool>> changes = new LinkedBlockingQueue<>();
    try (McpClientSession client = McpClientSession.connect(McpServerAddress.url(server.uri().toString()), Duration.ofSeconds(60), changes::add)) {
      assertThat(client.listTools()).extracting(io.modelcontextprotocol.spec.McpSchema.Tool::name).contains("slow");
      clock.advance(Duration.ofSeconds(6)); // the hold closes the session's listening stream
      store.create(BreadcrumbCreate.builder("tool.definition.v1", "another")
          .context(RcrtJson.parse("{\"name\":\"another\",\"description\":\"added after the hold\"}")).build());
      assertThat(changes.poll(30, TimeUnit.SECONDS)).as("the list change, on the listening stream the client came back to")
          .extracting(io.modelcontextprotocol.spec.McpSchema.Tool::name).contains("another");
    }
  }

  @Test
  void aSessionOutlivesItsServerOnTheSameStoreAndTheStoreHoldsNoSessionId() throws Exception {
    String session = initialize();
    server.close();

    // another server of the same store (a restart, or another process of the fleet) takes the session up
    server = McpToolServer.builder(runner).http("127.0.0.1", 0, null);
    BlockingQueue<String> listed = lines(post(session, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{}}"));
    event(listed); // priming
    JsonNode tools = RcrtJson.parse(event(listed).stream().filter(l -> l.startsWith("data: ")).findFirst().orElseThrow().substring(6));
    assertThat(tools.at("/result/tools/0/name").asText()).isEqualTo("slow");

    // the store keeps the session under a hash: nothing a reader of the store finds can be sent as the session id
    assertThat(store.search(dev.rcrt.core.Selector.schema("mcp.session.v1"), 10, 0)).singleElement()
        .satisfies(r -> assertThat(RcrtJson.write(r.context()) + r.id() + r.title() + r.tags()).doesNotContain(session));
    // an id no session has is not taken up
    assertThat(http.send(request("not-a-session").POST(HttpRequest.BodyPublishers.ofString(
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\",\"params\":{}}")).build(), HttpResponse.BodyHandlers.ofString()).statusCode())
        .isEqualTo(404);

    // deleted by the client in one process, it is gone from every process
    assertThat(http.send(request(session).DELETE().build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    server.close();
    server = McpToolServer.builder(runner).http("127.0.0.1", 0, null);
    assertThat(http.send(request(session).POST(HttpRequest.BodyPublishers.ofString(
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\",\"params\":{}}")).build(), HttpResponse.BodyHandlers.ofString()).statusCode())
        .isEqualTo(404);
  }

  /** Reads events until the answer to request 7; the stream must end after it. */
  private static JsonNode answerOn(BlockingQueue<String> stream) throws InterruptedException {
    List<String> primed = event(stream);
    assertThat(primed).contains("retry: 250");
    JsonNode answer = null;
    while (answer == null) {
      List<String> e = event(stream);
      assertThat(e).as("the answer comes before the stream ends").doesNotContain(END);
      assertThat(e).anySatisfy(l -> assertThat(l).matches("id: \\S+_[1-9][0-9]*"));
      JsonNode data = RcrtJson.parse(e.stream().filter(l -> l.startsWith("data: ")).findFirst().orElseThrow().substring(6));
      if (data.has("result")) {
        answer = data;
      }
    }
    assertThat(event(stream)).containsExactly(END);
    return answer;
  }

  /** The next event's lines (up to the blank line), or {@link #END} when the stream ended. */
  private static List<String> event(BlockingQueue<String> stream) throws InterruptedException {
    List<String> lines = new ArrayList<>();
    while (true) {
      String line = stream.poll(30, TimeUnit.SECONDS);
      assertThat(line).as("an event within 30 s").isNotNull();
      if (line.equals(END)) {
        return lines.isEmpty() ? List.of(END) : lines;
      }
      if (line.isEmpty()) {
        return lines;
      }
      lines.add(line);
    }
  }

  /** The response's lines, read on a thread of their own, then {@link #END}. */
  private static BlockingQueue<String> lines(HttpResponse<Stream<String>> response) {
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type")).get().asString().startsWith("text/event-stream");
    BlockingQueue<String> out = new LinkedBlockingQueue<>();
    Thread reader = new Thread(() -> {
      try (Stream<String> l = response.body()) {
        l.forEach(out::add);
      } catch (RuntimeException e) {
        // the connection closed under the reader
      }
      out.add(END);
    });
    reader.setDaemon(true);
    reader.start();
    return out;
  }

  private String initialize() throws Exception {
    HttpResponse<String> init = http.send(request(null).POST(HttpRequest.BodyPublishers.ofString(
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
            + "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(init.statusCode()).isEqualTo(200);
    String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
    HttpResponse<String> initialized = http.send(request(session)
        .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(initialized.statusCode()).isEqualTo(202);
    return session;
  }

  private HttpResponse<Stream<String>> post(String session, String body) throws Exception {
    return http.send(request(session).POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofLines());
  }

  private HttpResponse<Stream<String>> get(String session, String lastEventId) throws Exception {
    return get(server, session, lastEventId);
  }

  private HttpResponse<Stream<String>> get(McpToolServer at, String session, String lastEventId) throws Exception {
    return http.send(request(at, session).header("Last-Event-ID", lastEventId).GET().build(), HttpResponse.BodyHandlers.ofLines());
  }

  private HttpRequest.Builder request(String session) {
    return request(server, session);
  }

  private static HttpRequest.Builder request(McpToolServer at, String session) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(at.uri().toString()))
        .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2025-11-25");
    for (Map.Entry<String, String> h : session == null ? Map.<String, String>of().entrySet() : Map.of("Mcp-Session-Id", session).entrySet()) {
      b.header(h.getKey(), h.getValue());
    }
    return b;
  }
}
