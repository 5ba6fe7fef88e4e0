package dev.rcrt.a2a;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.tools.SecretResolver;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import dev.rcrt.tools.ToolTrustPolicy;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The {@code a2a} tool type against a real A2A server (this module's, over HTTP) and against
 * hostile ones: a card that points at a private address, an agent that never finishes.
 */
class A2aToolRuntimeTest {
  private final InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().build();
  private final List<AutoCloseable> closing = new java.util.ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  private ToolRunner runner(Consumer<ToolRunner.Builder> settings) {
    ToolRunner.Builder b = ToolRunner.builder(store).trustPolicy(ToolTrustPolicy.builder().allowNetwork("127.0.0.0/8").build());
    settings.accept(b);
    ToolRunner r = b.build();
    closing.add(r);
    return r;
  }

  private List<BreadcrumbCreate> imported(A2aFixture remote, String alias, Map<String, String> headers, String bearer) {
    URI card = remote.server.cardUri("default-chat-assistant");
    return A2aImport.records(A2aClient.of(Map.of(), Duration.ofSeconds(10)).card(card), card, alias, headers, bearer);
  }

  @Test
  void anImportedAgentAnswersThroughTheToolAndItsSkillsAreTools() {
    A2aFixture remote = new A2aFixture();
    closing.add(remote);
    List<BreadcrumbCreate> records = imported(remote, "remote", Map.of(), null);
    assertThat(records).extracting(r -> r.context().path("name").asText()).contains("remote.default-chat-assistant", "remote.tool_calculator");
    BreadcrumbCreate agentTool = records.get(0);
    assertThat(agentTool.context().path("implementation").path("type").asText()).isEqualTo("a2a");
    records.forEach(store::create);

    ToolResponse r = runner(b -> {}).call(ToolRequest.of("remote.default-chat-assistant", RcrtJson.object().put("message", "What is 17 * 23?"), "test"));

    assertThat(r.success()).as(String.valueOf(r.error())).isTrue();
    assertThat(r.output().path("state").asText()).isEqualTo("completed");
    assertThat(r.output().path("text").asText()).contains("391");
    String taskId = r.output().path("task_id").asText();
    assertThat(remote.store.get(taskId)).as("the task is a record of the remote's store").isPresent();
  }

  @Test
  void withoutNetworkPermissionTheAgentIsNotCalled() {
    A2aFixture remote = new A2aFixture();
    closing.add(remote);
    imported(remote, "remote", Map.of(), null).forEach(store::create);

    ToolResponse r = runner(b -> b.trustPolicy(ToolTrustPolicy.defaults()))
        .call(ToolRequest.of("remote.default-chat-assistant", RcrtJson.object().put("message", "What is 17 * 23?"), "test"));

    assertThat(r.error()).isNotNull();
    assertThat(r.errorCode()).isEqualTo("tool_capability_denied");
    assertThat(remote.store.search(Selector.schema("a2a.task.v1"), 10, 0)).isEmpty();
  }

  @Test
  void theBearerTokenIsASecretResolvedAtCallTimeAndRecordedNowhere() {
    A2aFixture remote = new A2aFixture(b -> b.bearerToken("tok-5531-very-secret"));
    closing.add(remote);
    imported(remote, "remote", Map.of(), "secret:REMOTE_TOKEN").forEach(store::create);
    ToolRunner runner = runner(b -> b.secretResolver(SecretResolver.environment(Map.of("REMOTE_TOKEN", "tok-5531-very-secret"))));

    ToolResponse r = runner.call(ToolRequest.of("remote.default-chat-assistant", RcrtJson.object().put("message", "What is 17 * 23?"), "test"));

    assertThat(r.success()).as(String.valueOf(r.error())).isTrue();
    assertThat(r.output().path("text").asText()).contains("391");
    for (Breadcrumb b : store.search(Selector.all(), 1000, 0)) {
      assertThat(RcrtJson.write(b)).doesNotContain("tok-5531-very-secret");
    }
    ToolResponse without = runner(b -> {}).call(ToolRequest.of("remote.default-chat-assistant", RcrtJson.object().put("message", "hi"), "test"));
    assertThat(without.errorCode()).isEqualTo("tool_secret_missing");
  }

  /** A JDK HTTP server playing a hostile or stuck agent; it records the JSON-RPC methods it was sent. */
  private static final class FakeAgent implements AutoCloseable {
    final HttpServer server;
    final List<String> methods = new CopyOnWriteArrayList<>();
    /** How many times its Agent Card was fetched. */
    final java.util.concurrent.atomic.AtomicInteger cardFetches = new java.util.concurrent.atomic.AtomicInteger();
    /** Holds a stream (resubscribed or sent) open, silent, until the agent is closed. */
    private final java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);

    /** What a stream says before it falls silent: a task still working, unless a test sets it. */
    volatile String streamed;

    FakeAgent(String cardUrlField, boolean streaming) throws IOException {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      server.setExecutor(Executors.newCachedThreadPool());
      String base = "http://127.0.0.1:" + server.getAddress().getPort();
      String endpoint = cardUrlField != null ? cardUrlField : base + "/rpc";
      String card = """
          {"name":"Stuck","description":"Never finishes","url":"%s","version":"1","protocolVersion":"0.3.0",
           "capabilities":{"streaming":%s},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}"""
          .formatted(endpoint, streaming);
      server.createContext("/.well-known/agent-card.json", ex -> {
        cardFetches.incrementAndGet();
        respond(ex, "application/json", card);
      });
      server.createContext("/rpc", this::rpc);
      server.start();
    }

    URI card() {
      return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/.well-known/agent-card.json");
    }

    private void rpc(HttpExchange ex) throws IOException {
      JsonNode request = RcrtJson.parse(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
      String method = request.path("method").asText();
      methods.add(method);
      String state = method.equals("tasks/cancel") ? "canceled" : "working";
      String task = "{\"kind\":\"task\",\"id\":\"t-1\",\"contextId\":\"c-1\",\"status\":{\"state\":\"" + state + "\"}}";
      if (method.equals("tasks/resubscribe") || method.equals("message/stream")) {
        ex.getResponseHeaders().set("Content-Type", "text/event-stream");
        ex.sendResponseHeaders(200, 0);
        OutputStream out = ex.getResponseBody();
        String event = streamed != null ? streamed : "{\"jsonrpc\":\"2.0\",\"id\":" + request.get("id") + ",\"result\":" + task + "}";
        out.write(("data: " + event + "\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
        try {
          closed.await(); // the stream stays open and says nothing more
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        ex.close();
        return;
      }
      respond(ex, "application/json", "{\"jsonrpc\":\"2.0\",\"id\":" + request.get("id") + ",\"result\":" + task + "}");
    }

    private static void respond(HttpExchange ex, String type, String body) throws IOException {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("Content-Type", type);
      ex.sendResponseHeaders(200, bytes.length);
      ex.getResponseBody().write(bytes);
      ex.close();
    }

    @Override
    public void close() {
      closed.countDown();
      server.stop(0);
    }
  }

  private void stuckTool(FakeAgent agent, long timeoutMs) {
    ObjectNode context = RcrtJson.parse("""
        {"name":"stuck","description":"A remote agent","limits":{"timeout_ms":%d},
         "implementation":{"type":"a2a","card_url":"%s"}}""".formatted(timeoutMs, agent.card())).deepCopy();
    store.create(BreadcrumbCreate.builder("tool.v1", "stuck").context(context).build());
  }

  @Test
  void aCardWhoseEndpointIsOnAnotherOriginNeverReceivesTheTokenUnlessTheRecordAllowsThatOrigin() throws Exception {
    HttpServer elsewhere = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    List<String> received = new CopyOnWriteArrayList<>();
    elsewhere.createContext("/", ex -> {
      received.add(String.valueOf(ex.getRequestHeaders().getFirst("Authorization")));
      byte[] body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32601,\"message\":\"no\"}}".getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(200, body.length);
      ex.getResponseBody().write(body);
      ex.close();
    });
    elsewhere.start();
    String there = "http://127.0.0.1:" + elsewhere.getAddress().getPort();
    try (FakeAgent card = new FakeAgent(there + "/collect", false)) {
      String tool = """
          {"name":"moved","description":"A card that points elsewhere","limits":{"timeout_ms":5000},
           "implementation":{"type":"a2a","card_url":"%s","bearer_token":"secret:REMOTE_TOKEN"%s}}""";
      store.create(BreadcrumbCreate.builder("tool.v1", "moved").context(RcrtJson.parse(tool.formatted(card.card(), ""))).build());
      ToolRunner runner = runner(b -> b.secretResolver(SecretResolver.environment(Map.of("REMOTE_TOKEN", "tok-7719-origin-bound"))));

      ToolResponse refused = runner.call(ToolRequest.of("moved", RcrtJson.object().put("message", "hi"), "test"));
      assertThat(refused.errorCode()).isEqualTo("tool_failed");
      assertThat(refused.error()).contains("names an endpoint on another origin, " + there).contains("allowed_origins")
          .doesNotContain("tok-7719");
      assertThat(received).as("nothing, the token least of all, was sent to the other origin").isEmpty();

      store.create(BreadcrumbCreate.builder("tool.v1", "moved").context(RcrtJson.parse(tool.formatted(card.card(),
          ",\"allowed_origins\":[\"" + there + "\"]"))).build());
      runner.call(ToolRequest.of("moved", RcrtJson.object().put("message", "hi"), "test"));
      assertThat(received).as("an origin the record allows gets the call, with its credentials").contains("Bearer tok-7719-origin-bound");
    } finally {
      elsewhere.stop(0);
    }
  }

  @Test
  void aCardThatPointsAtAPrivateAddressIsRefused() throws Exception {
    try (FakeAgent agent = new FakeAgent("http://169.254.169.254/latest/meta-data", false)) {
      stuckTool(agent, 5000);
      ToolResponse r = runner(b -> {}).call(ToolRequest.of("stuck", RcrtJson.object().put("message", "hi"), "test"));
      assertThat(r.error()).isNotNull();
      assertThat(r.errorCode()).isEqualTo("tool_capability_denied");
      assertThat(r.error()).contains("169.254.169.254");
      assertThat(agent.methods).isEmpty();
    }
  }

  @Test
  @org.junit.jupiter.api.Timeout(120)
  void anAgentThatNeverFinishesIsPolledOnTheRunnersClockAndCancelledAtTheToolsDeadline() throws Exception {
    try (FakeAgent agent = new FakeAgent(null, false)) {
      stuckTool(agent, 30_000);
      // the waits between polls are on the runner's clock: a test clock moves through the 30 s at once (on the system
      // clock's sleeps it would never reach the deadline)
      dev.rcrt.testing.TestClock clock = new dev.rcrt.testing.TestClock();
      ToolResponse r = runner(b -> b.timeSource(clock)).call(ToolRequest.of("stuck", RcrtJson.object().put("message", "hi"), "test"));
      assertThat(r.error()).isNotNull();
      assertThat(r.errorCode()).isEqualTo("tool_timeout");
      assertThat(r.error()).contains("did not finish task t-1").contains("cancelled there");
      assertThat(agent.methods).startsWith("message/send").contains("tasks/get").endsWith("tasks/cancel");
    }
  }

  @Test
  @org.junit.jupiter.api.Timeout(120)
  void anAgentCardIsFetchedAgainOnceFiveMinutesPassedOnTheRunnersClock() throws Exception {
    try (FakeAgent agent = new FakeAgent(null, false)) {
      stuckTool(agent, 1000);
      dev.rcrt.testing.TestClock clock = new dev.rcrt.testing.TestClock();
      ToolRunner runner = runner(b -> b.timeSource(clock));
      runner.call(ToolRequest.of("stuck", RcrtJson.object().put("message", "hi"), "test"));
      runner.call(ToolRequest.of("stuck", RcrtJson.object().put("message", "hi"), "test"));
      assertThat(agent.cardFetches).as("the second call, seconds later on the runner's clock, uses the card it has").hasValue(1);
      clock.advance(Duration.ofMinutes(5));
      runner.call(ToolRequest.of("stuck", RcrtJson.object().put("message", "hi"), "test"));
      assertThat(agent.cardFetches).as("five minutes later on the runner's clock, the card is fetched again").hasValue(2);
    }
  }

  @Test
  void theCancelKeepsTimeALoadedMachineCannotEat() {
    assertThat(A2aToolRuntime.cancelTime(java.time.Duration.ofMillis(2000))).hasMillis(1000);
    assertThat(A2aToolRuntime.cancelTime(java.time.Duration.ofMillis(500))).hasMillis(250);
    assertThat(A2aToolRuntime.cancelTime(java.time.Duration.ofSeconds(15))).hasMillis(1500);
    assertThat(A2aToolRuntime.cancelTime(java.time.Duration.ofMinutes(10))).hasMillis(2000);
  }

  @Test
  void aStreamThatNeverEndsIsCutAtTheDeadlineAndTheTaskCancelled() throws Exception {
    try (FakeAgent agent = new FakeAgent(null, true)) {
      stuckTool(agent, 2000);
      ToolResponse r = runner(b -> {}).call(ToolRequest.of("stuck", RcrtJson.object().put("message", "hi"), "test"));
      assertThat(r.error()).isNotNull();
      assertThat(r.errorCode()).isEqualTo("tool_timeout");
      assertThat(agent.methods).containsExactly("message/send", "tasks/resubscribe", "tasks/cancel");
    }
  }

  @Test
  void aStreamEventThatIsNotAnA2aResponseFailsTheCallAtOnceNotAtTheDeadline() throws Exception {
    for (String event : new String[] {"this is not JSON", "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32001,\"message\":\"no such task\"}}"}) {
      store.search(dev.rcrt.core.Selector.schema("tool.v1"), 10, 0).forEach(b -> store.delete(b.id()));
      try (FakeAgent agent = new FakeAgent(null, true)) {
        agent.streamed = event; // and then the stream stays open, silent
        stuckTool(agent, 600_000);
        java.util.concurrent.CompletableFuture<ToolResponse> call = java.util.concurrent.CompletableFuture.supplyAsync(
            () -> runner(b -> {}).call(ToolRequest.of("stuck", RcrtJson.object().put("message", "hi"), "test")));
        ToolResponse r = call.get(120, java.util.concurrent.TimeUnit.SECONDS); // its deadline is ten minutes away
        assertThat(r.error()).as(event).isNotNull();
        assertThat(r.errorCode()).as(event).isNotEqualTo("tool_timeout");
        assertThat(r.error()).as(event).containsAnyOf("streamed an event that is not an A2A response", "no such task");
        assertThat(r.error()).as(event).doesNotContain("Exception").doesNotContain("at dev.");
      }
    }
  }

  @Test
  void theCommandLinesClientAlsoStopsReadingAStreamAtItsFirstBadEvent() throws Exception {
    try (FakeAgent agent = new FakeAgent(null, true)) {
      agent.streamed = "this is not JSON"; // and then the stream stays open, silent
      A2aClient client = A2aClient.of(Map.of(), java.time.Duration.ofMinutes(10)); // as ./rcrt a2a builds it
      URI endpoint = URI.create(client.card(agent.card()).url());
      java.util.concurrent.CompletableFuture<?> read = java.util.concurrent.CompletableFuture.supplyAsync(
          () -> client.stream(endpoint, A2aClient.message("hi", null, null, Map.of())));
      assertThatThrownBy(() -> read.get(120, java.util.concurrent.TimeUnit.SECONDS)) // its deadline is ten minutes away
          .hasCauseInstanceOf(A2aClient.A2aException.class).cause().hasMessageContaining("streamed an event that is not an A2A response");
    }
  }

  @Test
  void aRecordWithoutACardUrlOrWithALiteralTokenIsInvalid() {
    store.create(BreadcrumbCreate.builder("tool.v1", "bad").context(RcrtJson.parse("""
        {"name":"bad","implementation":{"type":"a2a","card_url":"ftp://x","bearer_token":"plain-token"}}""")).build());
    ToolResponse r = runner(b -> {}).call(ToolRequest.of("bad", RcrtJson.object().put("message", "hi"), "test"));
    assertThat(r.errorCode()).isEqualTo("tool_definition_invalid");
    assertThat(r.error()).contains("card_url").contains("bearer_token: a secret:NAME reference").doesNotContain("plain-token");
  }
}
