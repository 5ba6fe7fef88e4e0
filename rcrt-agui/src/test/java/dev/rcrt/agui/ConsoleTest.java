package dev.rcrt.agui;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.Principal;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.llm.ChatMessage;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.ToolCall;
import dev.rcrt.testing.ScriptedLlmClient;
import dev.rcrt.testing.TestEmbeddings;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.ToolRunner;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The console's page and JSON API on a real server: runs, trails, the approvals inbox, tools, search and live updates. */
class ConsoleTest {
  private final InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().embeddings(new TestEmbeddings()).build();
  private final AtomicInteger wired = new AtomicInteger();
  private final HttpClient http = HttpClient.newHttpClient();
  private final ToolRunner runner;
  private final AgUiServer server;

  ConsoleTest() {
    BuiltinTools.seed(store);
    store.create(AgentDefinition.defaultChatAgent());
    store.create(BreadcrumbCreate.builder("tool.definition.v1", "wire").context(RcrtJson.parse(
        "{\"name\":\"wire-money\",\"description\":\"Sends money\",\"requires_approval\":true}")).build());
    store.create(BreadcrumbCreate.builder("tool.definition.v1", "elsewhere").context(RcrtJson.parse(
        "{\"name\":\"elsewhere\",\"description\":\"Runs somewhere else\",\"implementation\":{\"type\":\"no-such-runtime\"}}")).build());
    runner = ToolRunner.builder(store).approvers(Principal.ofWriter("user:alice"))
        .handler("wire-money", (in, ctx) -> RcrtJson.object().put("sent", wired.incrementAndGet())).build();
    ScriptedLlmClient model = ScriptedLlmClient.answering(r -> {
      List<ChatMessage> messages = r.messages();
      if ("tool".equals(messages.get(messages.size() - 1).role())) {
        return ChatResponse.text("Paid: " + messages.get(messages.size() - 1).content());
      }
      return ChatResponse.toolCalls(new ToolCall("call_pay", "wire-money", "{\"amount\":5}"));
    });
    server = AgUiServer.builder(model, runner).console("Alice").bearerToken("tok").start();
  }

  @AfterEach
  void close() {
    server.close();
    runner.close();
  }

  private HttpResponse<String> get(String path, boolean withToken) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.uri() + path));
    if (withToken) {
      b.header("Authorization", "Bearer tok");
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private JsonNode api(String path) throws Exception {
    HttpResponse<String> r = get(path, true);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return RcrtJson.parse(r.body());
  }

  private HttpResponse<String> post(String path, String body, Map<String, String> headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.uri() + path)).header("Authorization", "Bearer tok")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    headers.forEach(b::header);
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Runs "pay" through the AG-UI endpoint until its interrupt; returns the run id. */
  private String paymentWaiting() throws Exception {
    ObjectNode input = RcrtJson.object().put("threadId", "c1").put("runId", UUID.randomUUID().toString());
    input.putArray("messages").addObject().put("id", "m1").put("role", "user").put("content", "pay the bill");
    HttpResponse<String> stream = post("/agui/default-chat-assistant", RcrtJson.write(input), Map.of());
    assertThat(stream.body()).contains("\"interrupt\"");
    JsonNode waiting = api("/api/runs?status=waiting_for_approval");
    assertThat(waiting).hasSize(1);
    return waiting.get(0).path("id").asText();
  }

  @Test
  void thePageIsServedFromTheJarWithAStrictContentSecurityPolicyAndWritesNoMarkupFromData() throws Exception {
    HttpResponse<String> page = get("/", false); // the page holds no data: no token needed for it
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
    assertThat(page.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(p -> assertThat(p).contains("default-src 'self'"));
    assertThat(page.body()).contains("/console.js").doesNotContain("<script>");
    HttpResponse<String> script = get("/console.js", false);
    assertThat(script.statusCode()).isEqualTo(200);
    // records are written by tools and remote callers: the page shows them as text, never as markup
    assertThat(script.body()).doesNotContain("innerHTML").doesNotContain("outerHTML").doesNotContain("insertAdjacentHTML")
        .doesNotContain("document.write").doesNotContain("eval(");
    assertThat(get("/api/runs", false).statusCode()).isEqualTo(401);
    assertThat(get("/nothing-here", false).statusCode()).isEqualTo(404);
  }

  @Test
  void runsAndTrailsAreReadFromTheRecords() throws Exception {
    String runId = paymentWaiting();
    JsonNode all = api("/api/runs");
    assertThat(all).singleElement().satisfies(r -> {
      assertThat(r.path("agent").asText()).isEqualTo("default-chat-assistant");
      assertThat(r.path("session").asText()).isEqualTo("agui:c1");
      assertThat(r.path("status").asText()).isEqualTo("waiting_for_approval");
      assertThat(r.path("pending").get(0).path("tool").asText()).isEqualTo("wire-money");
    });
    JsonNode trail = api("/api/runs/" + runId);
    assertThat(trail.path("records")).extracting(r -> r.path("schema_name").asText())
        .contains("agent.response.v1", "tool.request.v1", "approval.request.v1");
    assertThat(api("/api/runs?status=done")).isEmpty();
    assertThat(get("/api/runs?status=sleeping", true).statusCode()).isEqualTo(400);
    assertThat(get("/api/runs/no-such-run", true).statusCode()).isEqualTo(404);
  }

  @Test
  void anApproverDecidesFromTheInboxAndNobodyElseCan() throws Exception {
    String runId = paymentWaiting();
    String callId = api("/api/runs/" + runId).path("pending").get(0).path("call").asText();
    String path = "/api/runs/" + runId + "/calls/" + callId;

    HttpResponse<String> mallory = post(path, "{\"decision\":\"approve\",\"approver\":\"mallory\"}", Map.of());
    assertThat(mallory.statusCode()).isEqualTo(403);
    assertThat(mallory.body()).contains("not one of this console's approvers");
    assertThat(post(path, "{\"decision\":\"maybe\",\"approver\":\"alice\"}", Map.of()).statusCode()).isEqualTo(400);
    assertThat(store.search(Selector.schema("approval.decision.v1"), 10, 0)).isEmpty();

    // a page the server served posts with its own Origin: that passes; another origin does not
    assertThat(post(path, "{\"decision\":\"approve\",\"approver\":\"alice\"}", Map.of("Origin", "https://evil.example")).statusCode())
        .isEqualTo(403);
    HttpResponse<String> alice = post(path, "{\"decision\":\"approve\",\"approver\":\"Alice\",\"reason\":\"expected bill\"}",
        Map.of("Origin", "http://" + server.uri().getAuthority()));
    assertThat(alice.statusCode()).as(alice.body()).isEqualTo(200);
    assertThat(RcrtJson.parse(alice.body()).path("by").asText()).isEqualTo("user:alice");
    ObjectNode resume = RcrtJson.object().put("threadId", "c1").put("runId", "r2");
    resume.putArray("messages").addObject().put("id", "m1").put("role", "user").put("content", "pay the bill");
    // following the run to its end: the decision counted (alice is the runner's approver) and the tool ran once
    HttpResponse<String> followed = post("/agui/default-chat-assistant", RcrtJson.write(resume), Map.of());
    assertThat(followed.body()).contains("\"success\"");
    assertThat(wired).hasValue(1);
    assertThat(store.search(Selector.schema("approval.decision.v1"), 10, 0)).singleElement()
        .satisfies(d -> assertThat(d.createdBy()).isEqualTo("user:alice"));
  }

  @Test
  void theToolCatalogSaysWhyAToolCannotRunHere() throws Exception {
    JsonNode tools = api("/api/tools");
    assertThat(tools).anySatisfy(t -> {
      assertThat(t.path("name").asText()).isEqualTo("calculator");
      assertThat(t.path("runs_here").asBoolean()).isTrue();
    });
    assertThat(tools).anySatisfy(t -> {
      assertThat(t.path("name").asText()).isEqualTo("elsewhere");
      assertThat(t.path("runs_here").asBoolean()).isFalse();
      assertThat(t.path("why_not").asText()).contains("no-such-runtime");
    });
  }

  @Test
  void searchByMeaningLeavesSecretsOut() throws Exception {
    store.create(BreadcrumbCreate.builder("note.v1", "How to create an agent").context(RcrtJson.parse("{\"text\":\"write an agent.def.v1\"}"))
        .build());
    store.create(BreadcrumbCreate.builder("secret.v1", "agent creation key").context(RcrtJson.parse("{\"value\":\"hunter2\"}")).build());
    JsonNode found = api("/api/search?q=" + java.net.URLEncoder.encode("how to create an agent", StandardCharsets.UTF_8) + "&nn=20");
    assertThat(found.path("complete").asBoolean()).isTrue();
    assertThat(found.path("results")).extracting(r -> r.path("title").asText()).contains("How to create an agent")
        .doesNotContain("agent creation key");
    assertThat(found.toString()).doesNotContain("hunter2");
    assertThat(get("/api/search?q=", true).statusCode()).isEqualTo(400);
  }

  @Test
  void liveUpdatesSayWhichRunChanged() throws Exception {
    HttpRequest request = HttpRequest.newBuilder(URI.create(server.uri() + "/api/events")).header("Authorization", "Bearer tok").build();
    HttpResponse<java.io.InputStream> events = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
    assertThat(events.statusCode()).isEqualTo(200);
    try (BufferedReader lines = new BufferedReader(new InputStreamReader(events.body(), StandardCharsets.UTF_8))) {
      assertThat(nextData(lines).path("type").asText()).isEqualTo("ready");
      CompletableFuture<String> run = CompletableFuture.supplyAsync(() -> {
        try {
          return paymentWaiting();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      JsonNode change = nextData(lines);
      assertThat(change.path("type").asText()).isEqualTo("changed");
      assertThat(change.path("schema_name").asText()).isEqualTo("user.message.v1");
      String runId = run.get(30, TimeUnit.SECONDS);
      JsonNode next;
      do {
        next = nextData(lines);
      } while (!next.has("run"));
      assertThat(next.path("run").asText()).isEqualTo(runId);
    }
  }

  @Test
  void streamsCannotTakeEveryThreadOfTheServer() throws Exception {
    List<java.io.InputStream> held = new java.util.ArrayList<>();
    try {
      for (int i = 0; i < dev.rcrt.agui.internal.AgUiEndpoint.MAX_STREAMS; i++) {
        HttpResponse<java.io.InputStream> events = http.send(HttpRequest.newBuilder(URI.create(server.uri() + "/api/events"))
            .header("Authorization", "Bearer tok").build(), HttpResponse.BodyHandlers.ofInputStream());
        assertThat(events.statusCode()).isEqualTo(200);
        held.add(events.body());
        assertThat(nextData(new BufferedReader(new InputStreamReader(events.body(), StandardCharsets.UTF_8))).path("type").asText())
            .isEqualTo("ready");
      }
      HttpResponse<String> more = get("/api/events", true);
      assertThat(more.statusCode()).isEqualTo(503);
      assertThat(more.headers().firstValue("Retry-After")).isPresent();
      assertThat(post("/agui/default-chat-assistant", "{\"threadId\":\"x\",\"runId\":\"r\",\"messages\":[{\"id\":\"m\",\"role\":\"user\",\"content\":\"hi\"}]}",
          Map.of()).statusCode()).isEqualTo(503);
      assertThat(get("/api/runs", true).statusCode()).as("short requests still served").isEqualTo(200);
    } finally {
      for (java.io.InputStream in : held) {
        in.close();
      }
    }
  }

  private static JsonNode nextData(BufferedReader lines) throws Exception {
    for (String line; (line = lines.readLine()) != null; ) {
      if (line.startsWith("data: ")) {
        return RcrtJson.parse(line.substring(6));
      }
    }
    throw new AssertionError("the stream ended");
  }
}
