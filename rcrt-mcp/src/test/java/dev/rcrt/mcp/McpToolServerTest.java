package dev.rcrt.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.ToolRunner;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The store's tools over streamable HTTP, driven by the official MCP Java SDK's client. */
class McpToolServerTest {
  private InMemoryBreadcrumbStore store;
  private ToolRunner runner;
  private McpToolServer server;
  private McpSyncClient client;

  @BeforeEach
  void start() {
    store = new InMemoryBreadcrumbStore();
    BuiltinTools.seed(store);
    runner = ToolRunner.builder(store).build();
    server = McpToolServer.builder(runner).http("127.0.0.1", 0, null);
  }

  @AfterEach
  void stop() {
    if (client != null) {
      client.closeGracefully();
    }
    server.close();
    runner.close();
  }

  private McpSyncClient connect(BlockingQueue<List<McpSchema.Tool>> changes) {
    client = TestClients.connect(server, "test-client", spec -> spec.toolsChangeConsumer(changes::add));
    return client;
  }

  @Test
  void toolsAreListedWithTheirSchemasAndACallRunsThroughTheChainWithTheClientAsRequester() {
    McpSyncClient c = connect(new LinkedBlockingQueue<>());
    McpSchema.Tool calculator = c.listTools().tools().stream().filter(t -> t.name().equals("calculator")).findFirst().orElseThrow();
    assertThat(RcrtJson.toTree(calculator.inputSchema()).path("properties").has("expression")).isTrue();
    assertThat(calculator.outputSchema()).containsEntry("type", "object");

    McpSchema.CallToolResult result = c.callTool(new McpSchema.CallToolRequest("calculator", Map.of("expression", "17 * 23")));
    assertThat(result.isError()).isFalse();
    assertThat(((McpSchema.TextContent) result.content().get(0)).text()).contains("391");
    assertThat(RcrtJson.write(RcrtJson.toTree(result.structuredContent()))).contains("\"result\":391");

    Breadcrumb request = store.search(Selector.schema("tool.request.v1"), 10, 0).get(0);
    assertThat(request.context().get("requestedBy").asText()).isEqualTo("agent:mcp:test-client");
    assertThat(request.createdBy()).isEqualTo("agent:mcp:test-client");
    assertThat(store.search(Selector.schema("tool.response.v1"), 10, 0)).hasSize(1);
  }

  @Test
  void aToolFailureIsAnErrorResultAndAnUnknownToolAProtocolError() {
    McpSyncClient c = connect(new LinkedBlockingQueue<>());
    McpSchema.CallToolResult bad = c.callTool(new McpSchema.CallToolRequest("calculator", Map.of("expression", 5)));
    assertThat(bad.isError()).isTrue();
    assertThat(((McpSchema.TextContent) bad.content().get(0)).text()).contains("/expression: expected string").contains("[tool_input_invalid]");
    assertThatThrownBy(() -> c.callTool(new McpSchema.CallToolRequest("no-such-tool", Map.of())))
        .isInstanceOfSatisfying(io.modelcontextprotocol.spec.McpError.class, e -> {
          assertThat(e.getJsonRpcError().code()).isEqualTo(McpSchema.ErrorCodes.INVALID_PARAMS);
          assertThat(String.valueOf(e.getJsonRpcError().data())).contains("no-such-tool");
        });
  }

  @Test
  void creatingAndDeletingAToolRecordChangesTheListAtOnceAndUntrustedToolsAreNeverListed() throws Exception {
    BlockingQueue<List<McpSchema.Tool>> changes = new LinkedBlockingQueue<>();
    McpSyncClient c = connect(changes);
    Breadcrumb made = store.create(BreadcrumbCreate.builder("tool.definition.v1", "Shout").context(RcrtJson.parse("""
        {"name":"shout","description":"Upper-cases text","implementation":{"type":"builtin","handler":"echo"}}""")).build());
    List<McpSchema.Tool> after = changes.poll(10, TimeUnit.SECONDS);
    assertThat(after).extracting(McpSchema.Tool::name).contains("shout");

    store.create(BreadcrumbCreate.builder("tool.definition.v1", "Evil").createdBy("tool:breadcrumb-create").context(RcrtJson.parse("""
        {"name":"evil","description":"written by a tool"}""")).build());
    assertThat(c.listTools().tools()).extracting(McpSchema.Tool::name).doesNotContain("evil");

    store.delete(made.id());
    List<McpSchema.Tool> gone = changes.poll(10, TimeUnit.SECONDS);
    while (gone != null && gone.stream().anyMatch(t -> t.name().equals("shout"))) {
      gone = changes.poll(10, TimeUnit.SECONDS);
    }
    assertThat(gone).extracting(McpSchema.Tool::name).doesNotContain("shout").contains("calculator");
  }

  @Test
  void logNotificationsFollowTheLevelTheClientSetsAndProgressCountsTowardsTheLimit() throws Exception {
    BlockingQueue<McpSchema.LoggingMessageNotification> logs = new LinkedBlockingQueue<>();
    BlockingQueue<McpSchema.ProgressNotification> progress = new LinkedBlockingQueue<>();
    client = TestClients.connect(server, "log-client", spec -> spec.loggingConsumer(logs::add).progressConsumer(progress::add));
    client.setLoggingLevel(McpSchema.LoggingLevel.ERROR);
    client.callTool(new McpSchema.CallToolRequest("calculator", Map.of("expression", "1 + 1")));
    client.callTool(new McpSchema.CallToolRequest("calculator", Map.of("expression", 1)));
    McpSchema.LoggingMessageNotification first = logs.poll(10, TimeUnit.SECONDS);
    assertThat(first).isNotNull();
    assertThat(first.level()).isEqualTo(McpSchema.LoggingLevel.ERROR);
    assertThat(first.data()).contains("tool 'calculator' failed");

    client.setLoggingLevel(McpSchema.LoggingLevel.DEBUG);
    logs.clear();
    client.callTool(McpSchema.CallToolRequest.builder("calculator").arguments(Map.of("expression", "2 + 2")).meta(Map.of("progressToken", "p1")).build());
    // the client hands notifications to its consumer on threads of its own, so the call's two lines (debug "running",
    // info "answered") may come in either order
    List<McpSchema.LoggingMessageNotification> lines = new java.util.ArrayList<>();
    for (McpSchema.LoggingMessageNotification n; lines.size() < 2 && (n = logs.poll(10, TimeUnit.SECONDS)) != null; ) {
      lines.add(n);
    }
    assertThat(lines).anySatisfy(n -> {
      assertThat(n.level()).isEqualTo(McpSchema.LoggingLevel.DEBUG);
      assertThat(n.data()).isEqualTo("running tool 'calculator' for agent:mcp:log-client");
    }).anySatisfy(n -> assertThat(n.data()).startsWith("tool 'calculator' answered in "));
    McpSchema.ProgressNotification tick = progress.poll(10, TimeUnit.SECONDS);
    assertThat(tick.progressToken()).isEqualTo("p1");
    assertThat(tick.total()).isEqualTo(30_000.0);
  }

  @Test
  void aRequestFromAnotherSiteIsRefusedAsDnsRebindingProtection() throws Exception {
    HttpRequest foreign = HttpRequest.newBuilder(server.uri())
        .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
        .header("Origin", "http://evil.example")
        .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}")).build();
    HttpResponse<String> answer = HttpClient.newHttpClient().send(foreign, HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).isEqualTo(403);
  }

  @Test
  void transportErrorsOfEveryMethodAreJsonRpcErrorsWithoutAStackTraceOrAServerName() throws Exception {
    String call = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}";
    List<HttpRequest> probes = List.of(
        HttpRequest.newBuilder(server.uri()).header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
            .header("Mcp-Session-Id", "no-such-session").POST(HttpRequest.BodyPublishers.ofString(call)).build(),
        HttpRequest.newBuilder(server.uri()).header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
            .POST(HttpRequest.BodyPublishers.ofString(call)).build(),
        HttpRequest.newBuilder(server.uri()).header("Content-Type", "application/json").header("Accept", "text/plain")
            .POST(HttpRequest.BodyPublishers.ofString(call)).build(),
        HttpRequest.newBuilder(server.uri()).header("Accept", "text/event-stream").header("Mcp-Session-Id", "no-such-session").GET().build(),
        HttpRequest.newBuilder(server.uri()).header("Mcp-Session-Id", "no-such-session").DELETE().build());
    for (HttpRequest probe : probes) {
      HttpResponse<String> answer = HttpClient.newHttpClient().send(probe, HttpResponse.BodyHandlers.ofString());
      String what = probe.method() + " " + probe.headers().map();
      assertThat(answer.statusCode()).as(what).isBetween(400, 499);
      assertThat(answer.body()).as(what).doesNotContain("stackTrace").doesNotContain("Exception").doesNotContain("io.modelcontextprotocol")
          .doesNotContain("Tomcat").doesNotContain("className");
      JsonNode error = RcrtJson.parse(answer.body());
      assertThat(error.path("jsonrpc").asText()).as(what).isEqualTo("2.0");
      assertThat(error.at("/error/message").asText()).as(what).isNotBlank();
      assertThat(error.at("/error/data/log_ref").asText()).as(what).matches("[0-9a-f]+");
    }
  }

  @Test
  void clientsThatTrickleTheirBodiesHoldNoThreadAndEveryoneElseIsServed() throws Exception {
    // more than Tomcat's 200 request threads, each of which a body read with blocking reads held
    List<java.net.Socket> slow = new java.util.ArrayList<>();
    try {
      for (int i = 0; i < 240; i++) {
        java.net.Socket s = new java.net.Socket(server.uri().getHost(), server.uri().getPort());
        s.getOutputStream().write(("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Accept: application/json, text/event-stream\r\nContent-Length: 60000\r\n\r\n{").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        slow.add(s);
      }
      client = McpClient.sync(HttpClientStreamableHttpTransport.builder("http://" + server.uri().getAuthority()).build())
          .requestTimeout(Duration.ofSeconds(60)).build();
      client.initialize();
      assertThat(client.listTools().tools()).isNotEmpty();
      assertThat(slow).as("the slow clients are still connected").noneMatch(java.net.Socket::isClosed);
    } finally {
      for (java.net.Socket s : slow) {
        s.close();
      }
    }
  }

  @Test
  void requestsTheHttpServerCannotReadAreJsonRpcErrorsWithoutAStackTraceOrAServerName() throws Exception {
    // before, Tomcat's own page answered these: its version, the exception's class and message, and its stack
    for (String head : new String[] {"GET /mcp/\u0001bad HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        "BAD\u0001 /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc\r\n\r\n{}"}) {
      try (java.net.Socket s = new java.net.Socket(server.uri().getHost(), server.uri().getPort())) {
        s.setSoTimeout(60_000);
        s.getOutputStream().write(head.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
        s.shutdownOutput();
        String answer = new String(s.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(answer).as(head).startsWith("HTTP/1.1 400").contains("\"jsonrpc\":\"2.0\"").contains("\"code\":-32600")
            .doesNotContain("Exception").doesNotContain("Tomcat").doesNotContain("org.apache").doesNotContain("<html");
      }
    }
  }

  @Test
  void malformedJsonRpcGetsAParseErrorWithoutJavaInternals() throws Exception {
    for (String body : new String[] {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":", "not json at all", "{\"a\":1,\"a\":2}"}) {
      HttpRequest malformed = HttpRequest.newBuilder(server.uri())
          .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
          .POST(HttpRequest.BodyPublishers.ofString(body)).build();
      HttpResponse<String> answer = HttpClient.newHttpClient().send(malformed, HttpResponse.BodyHandlers.ofString());
      assertThat(answer.statusCode()).as(body).isEqualTo(400);
      JsonNode error = RcrtJson.parse(answer.body());
      assertThat(error.path("jsonrpc").asText()).isEqualTo("2.0");
      assertThat(error.path("id").isNull()).isTrue();
      assertThat(error.at("/error/code").asInt()).isEqualTo(-32700);
      assertThat(answer.body()).doesNotContain("Exception").doesNotContain("com.fasterxml").doesNotContain("\tat ");
    }
    // JSON that is no request: a batch of numbers, an empty batch, a bare value (MCP has no batches since 2025-06-18)
    for (String body : new String[] {"[1,2,3]", "[]", "1", "null", "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]"}) {
      HttpRequest odd = HttpRequest.newBuilder(server.uri())
          .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
          .POST(HttpRequest.BodyPublishers.ofString(body)).build();
      HttpResponse<String> answer = HttpClient.newHttpClient().send(odd, HttpResponse.BodyHandlers.ofString());
      assertThat(answer.statusCode()).as(body).isEqualTo(400);
      assertThat(answer.body()).as(body).doesNotContain("Exception").doesNotContain("com.fasterxml").doesNotContain("\tat ")
          .doesNotContain("java.");
      JsonNode error = RcrtJson.parse(answer.body());
      assertThat(error.at("/error/code").asInt()).as(body).isIn(-32700, -32600);
    }
  }

  @Test
  void anotherAddressNeedsABearerTokenAndRequestsWithoutItAreRefused() throws Exception {
    assertThatThrownBy(() -> McpToolServer.builder(runner).http("0.0.0.0", 0, null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bearer token");
    try (McpToolServer guarded = McpToolServer.builder(runner).http("127.0.0.1", 0, "s3cret-token")) {
      HttpRequest anonymous = HttpRequest.newBuilder(guarded.uri()).header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString("{}")).build();
      HttpResponse<String> answer = HttpClient.newHttpClient().send(anonymous, HttpResponse.BodyHandlers.ofString());
      assertThat(answer.statusCode()).isEqualTo(401);
      assertThat(answer.headers().firstValue("WWW-Authenticate")).contains("Bearer");
      McpSyncClient authorised = McpClient.sync(HttpClientStreamableHttpTransport.builder("http://" + guarded.uri().getAuthority())
              .endpoint("/mcp").requestBuilder(HttpRequest.newBuilder().header("Authorization", "Bearer s3cret-token")).build())
          .requestTimeout(Duration.ofSeconds(20)).build();
      try {
        authorised.initialize();
        assertThat(authorised.listTools().tools()).isNotEmpty();
      } finally {
        authorised.closeGracefully();
      }
    }
  }
}
