package dev.rcrt.sample;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import dev.rcrt.mcp.McpClientSession;
import dev.rcrt.mcp.McpServerAddress;
import dev.rcrt.postgres.TestPostgres;
import dev.rcrt.testing.LogWaits;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged sample, as an operator runs it: {@code java -jar} with {@code rcrt.*} and {@code
 * spring.datasource.*} properties on the command line, a real PostgreSQL, and an OpenAI-compatible
 * endpoint (a JDK HTTP server scripting the model's side of chat completions: it calls the tools
 * the request offers and answers with what the last tool returned, so the answer can only come
 * through both tools).
 */
class SampleJarIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String API_KEY = "sk-sample-never-recorded-4711";

  private final List<JsonNode> modelRequests = new CopyOnWriteArrayList<>();
  private HttpServer model;
  private Process app;
  /** The application's log: removed with the test, however the test ends. */
  @TempDir private Path logs;

  @AfterEach
  void stop() throws InterruptedException {
    if (app != null) {
      app.destroy();
      if (!app.waitFor(20, TimeUnit.SECONDS)) {
        app.destroyForcibly().waitFor();
      }
    }
    if (model != null) {
      model.stop(0);
    }
  }

  @Test
  void theJarStartsReadsItsPropertiesAndAnswersThroughTheJavaScriptToolAndTheToolBeanOnPostgres() throws Exception {
    startModel();
    String schema = TestPostgres.freshSchema();
    int port = freePort();
    Path log = logs.resolve("sample.log");
    List<String> command = List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", System.getProperty("sample.jar"),
        "--server.port=" + port,
        "--server.address=127.0.0.1",
        "--spring.datasource.url=" + TestPostgres.jdbcUrl(),
        "--spring.datasource.username=" + userOf(TestPostgres.jdbcUrl()),
        "--rcrt.store.schema=" + schema,
        "--rcrt.model.base-url=http://127.0.0.1:" + model.getAddress().getPort() + "/v1",
        "--rcrt.model.api-key=" + API_KEY);
    app = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    LogWaits.until(log, "Started SampleApplication", app, Duration.ofSeconds(120));

    HttpClient http = HttpClient.newHttpClient();
    HttpResponse<String> reply = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ask"))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"session\":\"s1\",\"message\":\"What does shipping 3 parcels of 2 kg to Oslo cost?\"}"))
        .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(reply.statusCode()).as(reply.body() + "\n" + Files.readString(log)).isEqualTo(200);
    JsonNode answer = JSON.readTree(reply.body());
    // Oslo: 4.5 per kg + 12 per parcel (the @Tool bean); 3 x (2 x 4.5 + 12) = 63 (the JavaScript tool)
    assertThat(answer.get("answer").asText()).isEqualTo("Shipping costs 63 NOK.");
    assertThat(answer.get("status").asText()).isEqualTo("SUCCESS");
    assertThat(answer.get("toolCalls").asInt()).isEqualTo(2);

    List<String> offered = new ArrayList<>();
    modelRequests.get(0).path("tools").forEach(t -> offered.add(t.at("/function/name").asText()));
    assertThat(offered).contains("parcelRate").anyMatch(n -> n.startsWith("shipping"));
    assertThat(modelRequests.get(0).path("model").asText()).isEqualTo("gpt-4o-mini"); // application.properties

    // bad questions are refused before the agent sees them, without a stack trace
    for (String bad : new String[] {"{\"message\":\"hi\"}", "{\"session\":\"s1\"}", "{\"session\":\"../x\",\"message\":\"hi\"}"}) {
      HttpResponse<String> refused = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ask"))
          .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(bad)).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(refused.statusCode()).as(bad + " -> " + refused.body()).isEqualTo(400);
      assertThat(refused.body()).doesNotContain("Exception").doesNotContain("\tat ");
    }
    // a 5 MiB upload sent whole: read and thrown away (up to 8 MiB), so the client reads the 413
    HttpResponse<String> huge = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ask"))
        .header("Content-Type", "application/json").timeout(Duration.ofSeconds(60))
        .POST(HttpRequest.BodyPublishers.ofString("{\"session\":\"s2\",\"message\":\"" + "x".repeat(5 * 1024 * 1024) + "\"}")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(huge.statusCode()).isEqualTo(413);
    // the same upload asked as curl asks (Expect: 100-continue): the 413 comes before the client
    // sends a byte of the body, so it cannot be lost to a connection closed under an unread body
    assertThat(firstLineForAnUploadThatExpectsToContinue(port, 5 * 1024 * 1024)).startsWith("HTTP/1.1 413");
    assertThat(modelRequests).as("the model was asked about none of them").hasSize(3);

    Map<String, Integer> trail = new HashMap<>();
    try (Connection c = TestPostgres.dataSource().getConnection();
        ResultSet rows = c.createStatement().executeQuery(
            "select schema_name, count(*) from " + schema + ".breadcrumbs group by schema_name")) {
      while (rows.next()) {
        trail.put(rows.getString(1), rows.getInt(2));
      }
    }
    assertThat(trail).containsEntry("user.message.v1", 1).containsEntry("tool.request.v1", 2).containsEntry("tool.response.v1", 2)
        .containsEntry("tool.code.v1", 1).containsEntry("agent.def.v1", 2); // the sample's agent and the SDK's default one
    assertThat(trail.get("tool.v1")).as("the @Tool bean's record").isEqualTo(1);
    try (Connection c = TestPostgres.dataSource().getConnection();
        ResultSet rows = c.createStatement().executeQuery(
            "select count(*) from " + schema + ".breadcrumbs where context::text like '%" + API_KEY + "%'")) {
      rows.next();
      assertThat(rows.getInt(1)).as("records holding the API key").isZero();
    }

    HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health")).build(),
        HttpResponse.BodyHandlers.ofString());
    JsonNode rcrt = JSON.readTree(health.body()).at("/components/rcrt");
    assertThat(rcrt.path("status").asText()).as(health.body()).isEqualTo("UP");
    assertThat(rcrt.at("/details/store").asText()).isEqualTo("PostgresBreadcrumbStore");
    assertThat(rcrt.at("/details/toolsThatCannotRun").size()).as(health.body()).isZero();
    assertThat(Files.readString(log)).doesNotContain(API_KEY);

    // the same tools over MCP on the application's own server
    try (McpClientSession mcp = McpClientSession.connect(McpServerAddress.url("http://127.0.0.1:" + port + "/mcp"),
        Duration.ofSeconds(30), t -> {})) {
      assertThat(mcp.listTools()).extracting(McpSchema.Tool::name).contains("parcelRate", "shipping-total", "calculator");
      McpSchema.CallToolResult rate = mcp.call("parcelRate", Map.of("destination", "Bergen"));
      assertThat(rate.isError()).isFalse();
      assertThat(rate.structuredContent().toString()).contains("perKg=5.0");
    }
    HttpResponse<String> foreign = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/mcp"))
        .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
        .header("Origin", "https://evil.example")
        .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(foreign.statusCode()).as("a browser page of another origin").isEqualTo(403);
    HttpResponse<String> garbage = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/mcp"))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{not json")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(garbage.statusCode()).isEqualTo(400);
    assertThat(garbage.body()).contains("-32700").doesNotContain("Exception");
  }

  /**
   * The first line the application answers to a {@code POST /ask} that declares {@code length}
   * bytes and {@code Expect: 100-continue}, before any of the body is sent: {@code HTTP/1.1 100}
   * when it asks for the body. A raw socket, because the JDK client does not return a final answer
   * to an expectation on JDK 17 (it waits for ever).
   */
  private static String firstLineForAnUploadThatExpectsToContinue(int port, long length) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(60_000);
      socket.getOutputStream().write(("POST /ask HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nContent-Type: application/json\r\n"
          + "Content-Length: " + length + "\r\nExpect: 100-continue\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      return new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII)).readLine();
    }
  }

  /** The model's side of OpenAI chat completions: parcelRate, then shipping-total with its rate, then the total. */
  private void startModel() throws IOException {
    model = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    model.createContext("/v1/chat/completions", exchange -> {
      JsonNode request = JSON.readTree(exchange.getRequestBody());
      modelRequests.add(request);
      JsonNode messages = request.get("messages");
      JsonNode last = messages.get(messages.size() - 1);
      ObjectNode message = JSON.createObjectNode().put("role", "assistant");
      if (!"tool".equals(last.path("role").asText())) {
        call(message, "parcelRate", JSON.createObjectNode().put("destination", "Oslo"));
      } else {
        JsonNode result = JSON.readTree(last.path("content").asText());
        if (result.has("perKg")) {
          call(message, functionStartingWith(request, "shipping"), JSON.createObjectNode().put("parcels", 3).put("weight_kg", 2)
              .put("per_kg", result.get("perKg").asDouble()).put("fee", result.get("fee").asDouble())
              .put("currency", result.get("currency").asText()));
        } else {
          message.put("content", "Shipping costs " + result.get("total").asText() + " " + result.get("currency").asText() + ".");
        }
      }
      ObjectNode response = JSON.createObjectNode().put("id", "chatcmpl-1").put("object", "chat.completion").put("model", "gpt-4o-mini");
      ObjectNode choice = response.putArray("choices").addObject();
      choice.put("index", 0).put("finish_reason", message.has("tool_calls") ? "tool_calls" : "stop").set("message", message);
      response.putObject("usage").put("prompt_tokens", 10).put("completion_tokens", 5).put("total_tokens", 15);
      byte[] body = JSON.writeValueAsBytes(response);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    model.start();
  }

  private static void call(ObjectNode message, String function, ObjectNode arguments) {
    ObjectNode call = message.putArray("tool_calls").addObject().put("id", "call_" + function).put("type", "function");
    call.putObject("function").put("name", function).put("arguments", arguments.toString());
  }

  private static String functionStartingWith(JsonNode request, String prefix) {
    for (JsonNode tool : request.path("tools")) {
      String name = tool.at("/function/name").asText();
      if (name.startsWith(prefix)) {
        return name;
      }
    }
    throw new AssertionError("no tool starting with " + prefix + " offered: " + request.path("tools"));
  }

  private static String userOf(String jdbcUrl) {
    for (String pair : URI.create(jdbcUrl.substring("jdbc:".length())).getRawQuery().split("&")) {
      if (pair.startsWith("user=")) {
        return pair.substring(5);
      }
    }
    return "postgres";
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
