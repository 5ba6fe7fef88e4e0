package dev.rcrt.agui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.llm.ChatMessage;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.ToolCall;
import dev.rcrt.testing.ScriptedLlmClient;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.ToolRunner;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The AG-UI server on records, through real HTTP: runs, tool calls, approvals as interrupts, resuming streams, and refusals. */
class AgUiServerTest {
  private static final String AGENT = "default-chat-assistant";

  private final InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().build();
  private final AtomicInteger wired = new AtomicInteger();
  private final HttpClient http = HttpClient.newHttpClient();
  private final List<AutoCloseable> open = new ArrayList<>();

  AgUiServerTest() {
    BuiltinTools.seed(store);
    store.create(AgentDefinition.defaultChatAgent());
    store.create(BreadcrumbCreate.builder("tool.definition.v1", "wire").context(RcrtJson.parse(
        "{\"name\":\"wire-money\",\"description\":\"Sends money\",\"requires_approval\":true}")).build());
  }

  /** A server on the test's store with a runner of its own, as another process of a shared store would have. */
  private AgUiServer server(java.util.function.Consumer<AgUiServer.Builder> settings) {
    ToolRunner runner = ToolRunner.builder(store).approvers(AgUiServer.CALLER)
        .handler("wire-money", (in, ctx) -> RcrtJson.object().put("sent", wired.incrementAndGet()))
        .build();
    AgUiServer.Builder b = AgUiServer.builder(model(), runner);
    settings.accept(b);
    AgUiServer server = b.start();
    open.add(server);
    open.add(runner);
    return server;
  }

  private AgUiServer server() {
    return server(b -> {});
  }

  private static ScriptedLlmClient model() {
    return ScriptedLlmClient.answering(r -> {
      List<ChatMessage> messages = r.messages();
      ChatMessage last = messages.get(messages.size() - 1);
      if ("tool".equals(last.role())) {
        return ChatResponse.text("The answer is " + last.content());
      }
      String said = String.valueOf(r.lastUserMessage() == null ? "" : r.lastUserMessage().content());
      if (said.contains("pay")) {
        return ChatResponse.toolCalls(new ToolCall("call_pay", "wire-money", "{\"amount\":5}"));
      }
      if (said.contains("17 * 23")) {
        return ChatResponse.toolCalls(new ToolCall("call_1", "calculator", "{\"expression\":\"17 * 23\"}"));
      }
      return ChatResponse.text("echo: " + said);
    });
  }

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
  }

  private static ObjectNode input(String threadId, String text) {
    ObjectNode input = RcrtJson.object().put("threadId", threadId).put("runId", UUID.randomUUID().toString());
    input.putArray("messages").addObject().put("id", "m-" + text.hashCode()).put("role", "user").put("content", text);
    input.putObject("state");
    input.putArray("tools");
    input.putArray("context");
    return input;
  }

  /** One SSE event: its id and AG-UI event. */
  record Sse(String id, JsonNode event) {
    String type() {
      return event.path("type").asText();
    }
  }

  private List<Sse> post(AgUiServer server, JsonNode input, Map<String, String> headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(server.endpoint(AGENT))
        .header("Content-Type", "application/json").header("Accept", "text/event-stream")
        .POST(HttpRequest.BodyPublishers.ofString(RcrtJson.write(input)));
    headers.forEach(request::header);
    HttpResponse<java.io.InputStream> response = http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type")).hasValue("text/event-stream");
    List<Sse> events = new ArrayList<>();
    try (BufferedReader lines = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
      String id = null;
      for (String line; (line = lines.readLine()) != null; ) {
        if (line.startsWith("id: ")) {
          id = line.substring(4);
        } else if (line.startsWith("data: ")) {
          events.add(new Sse(id, RcrtJson.parse(line.substring(6))));
          id = null; // each event's own id: text as it streams has none
        }
      }
    }
    return events;
  }

  private List<Sse> post(AgUiServer server, JsonNode input) throws Exception {
    return post(server, input, Map.of());
  }

  private HttpResponse<String> raw(AgUiServer server, String path, String body, Map<String, String> headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.uri() + path)).POST(HttpRequest.BodyPublishers.ofString(body));
    headers.forEach(request::header);
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aRunStreamsItsToolCallsAndAnswerFromItsRecordsAndEnds() throws Exception {
    AgUiServer server = server();
    ObjectNode input = input("t1", "what is 17 * 23?");
    List<Sse> events = post(server, input);

    assertThat(events).extracting(Sse::type).containsExactly("RUN_STARTED", "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END",
        "TOOL_CALL_RESULT", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED");
    assertThat(events.get(0).event().path("runId").asText()).isEqualTo(input.path("runId").asText());
    assertThat(events.get(1).event().path("toolCallName").asText()).isEqualTo("calculator");
    assertThat(RcrtJson.parse(events.get(2).event().path("delta").asText()).path("expression").asText()).isEqualTo("17 * 23");
    String callId = events.get(1).event().path("toolCallId").asText();
    assertThat(events.get(4).event().path("toolCallId").asText()).isEqualTo(callId);
    assertThat(events.get(4).event().path("content").asText()).contains("391");
    assertThat(events.get(6).event().path("delta").asText()).contains("391");
    JsonNode finished = events.get(8).event();
    assertThat(finished.path("outcome").path("type").asText()).isEqualTo("success");
    assertThat(finished.path("threadId").asText()).isEqualTo("t1");
    assertThat(events).extracting(Sse::id).doesNotHaveDuplicates().doesNotContainNull();
    // text as it streamed has an id of its own kind, text as its record tells it the record's
    assertThat(events).filteredOn(e -> e.id().startsWith("live.")).extracting(Sse::type).isSubsetOf("TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT");
    // the user message is the thread's record, written once however often the input is posted
    post(server, input);
    assertThat(store.search(Selector.schema("user.message.v1"), 10, 0)).hasSize(1)
        .allSatisfy(m -> assertThat(m.tags()).contains("session:agui:t1"));
  }

  @Test
  void aClientThatReconnectsWithLastEventIdGetsExactlyWhatItMissedFromAnotherProcess() throws Exception {
    AgUiServer one = server();
    ObjectNode input = input("t2", "what is 17 * 23?");
    post(one, input);
    AgUiServer other = server(); // another process of the same store
    List<Sse> all = post(other, input); // the run is over: the records tell every event, each with its id
    assertThat(all).extracting(Sse::id).doesNotContainNull();
    for (int seen = 1; seen < all.size(); seen++) {
      List<Sse> rest = post(other, input, Map.of("Last-Event-ID", all.get(seen - 1).id()));
      assertThat(rest).as("after event %d (%s)", seen, all.get(seen - 1).id()).isEqualTo(all.subList(seen, all.size()));
    }
    assertThat(post(other, input, Map.of("Last-Event-ID", all.get(all.size() - 1).id()))).isEmpty();
    for (String forged : List.of("-5.0", "1.-1", "start.-1", "x.y", "1", "", "live.1.0.5", "live.-1.1.1", "live.1.1", "live.1.1.99999999999")) {
      HttpResponse<String> refused = raw(other, "/agui/" + AGENT, RcrtJson.write(input), Map.of("Last-Event-ID", forged));
      assertThat(refused.statusCode()).as("Last-Event-ID '%s'", forged).isIn(200, 400);
      assertThat(refused.body()).doesNotContain("Exception").doesNotContain("ref ");
    }
  }

  @Test
  void aCallThatWaitsForApprovalIsAnInterruptAndTheResumeDecidesItOnce() throws Exception {
    AgUiServer server = server();
    List<Sse> first = post(server, input("t3", "pay the bill"));
    assertThat(first).extracting(Sse::type).containsExactly("RUN_STARTED", "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "RUN_FINISHED");
    JsonNode outcome = first.get(4).event().path("outcome");
    assertThat(outcome.path("type").asText()).isEqualTo("interrupt");
    JsonNode interrupt = outcome.path("interrupts").get(0);
    assertThat(interrupt.path("reason").asText()).isEqualTo("tool_call");
    assertThat(interrupt.path("toolCallId").asText()).isEqualTo(first.get(1).event().path("toolCallId").asText());
    assertThat(interrupt.path("responseSchema").path("required").get(0).asText()).isEqualTo("approved");
    assertThat(wired).hasValue(0);

    ObjectNode resume = RcrtJson.object().put("threadId", "t3").put("runId", "r-resume");
    resume.putArray("messages");
    resume.putArray("resume").addObject().put("interruptId", interrupt.path("id").asText()).put("status", "resolved")
        .putObject("payload").put("approved", true).put("reason", "fine");
    List<Sse> second = post(server, resume);
    assertThat(second).extracting(Sse::type).containsExactly("RUN_STARTED", "TOOL_CALL_RESULT", "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED");
    assertThat(second.get(0).event().path("runId").asText()).isEqualTo("r-resume");
    assertThat(second.get(5).event().path("outcome").path("type").asText()).isEqualTo("success");
    assertThat(wired).hasValue(1);
    assertThat(store.search(Selector.schema("approval.decision.v1"), 10, 0)).singleElement()
        .satisfies(d -> assertThat(d.createdBy()).isEqualTo("user:agui-caller"));

    // the same resume again is safe: nothing is decided or paid twice
    assertThat(post(server, resume)).extracting(Sse::type).last().isEqualTo("RUN_FINISHED");
    assertThat(wired).hasValue(1);
    assertThat(store.search(Selector.schema("approval.decision.v1"), 10, 0)).hasSize(1);
  }

  @Test
  void aDenialEndsTheCallDeniedAndNothingIsPaid() throws Exception {
    AgUiServer server = server();
    List<Sse> first = post(server, input("t4", "pay the bill"));
    String interruptId = first.get(first.size() - 1).event().path("outcome").path("interrupts").get(0).path("id").asText();
    ObjectNode resume = RcrtJson.object().put("threadId", "t4").put("runId", "r2");
    resume.putArray("resume").addObject().put("interruptId", interruptId).put("status", "cancelled");
    List<Sse> second = post(server, resume);
    assertThat(second.get(1).type()).isEqualTo("TOOL_CALL_RESULT");
    assertThat(second.get(1).event().path("content").asText()).contains("tool_denied");
    assertThat(wired).hasValue(0);
  }

  @Test
  void aResumeCannotDecideACallOfAnotherThread() throws Exception {
    AgUiServer server = server();
    List<Sse> first = post(server, input("t5", "pay the bill"));
    String interruptId = first.get(first.size() - 1).event().path("outcome").path("interrupts").get(0).path("id").asText();
    ObjectNode resume = RcrtJson.object().put("threadId", "someone-else").put("runId", "r3");
    resume.putArray("resume").addObject().put("interruptId", interruptId).put("status", "resolved").putObject("payload").put("approved", true);
    HttpResponse<String> refused = raw(server, "/agui/" + AGENT, RcrtJson.write(resume), Map.of());
    assertThat(refused.statusCode()).isEqualTo(404);
    assertThat(RcrtJson.parse(refused.body()).path("error").asText()).contains("no interrupt");
    assertThat(store.search(Selector.schema("approval.decision.v1"), 10, 0)).isEmpty();
    assertThat(wired).hasValue(0);
  }

  @Test
  void badRequestsGetAClearErrorAndNoInternals() throws Exception {
    AgUiServer server = server(b -> b.maxRequestBytes(2048));
    for (String body : List.of("{not json", "[]", "{\"threadId\":\"t\",\"runId\":\"r\",\"messages\":[]}",
        "{\"threadId\":\"bad\\nid\",\"runId\":\"r\",\"messages\":[{\"id\":\"m\",\"role\":\"user\",\"content\":\"hi\"}]}",
        "{\"threadId\":\"t\",\"runId\":\"r\",\"resume\":[{\"interruptId\":\"x\",\"status\":\"maybe\"}]}")) {
      HttpResponse<String> r = raw(server, "/agui/" + AGENT, body, Map.of());
      assertThat(r.statusCode()).as(body).isEqualTo(400);
      assertThat(r.body()).startsWith("{\"error\":").doesNotContain("Exception").doesNotContain("\tat ");
    }
    assertThat(raw(server, "/agui/no-such-agent", RcrtJson.write(input("t", "hi")), Map.of()).statusCode()).isEqualTo(404);
    assertThat(raw(server, "/agui/" + AGENT, "x".repeat(5000), Map.of()).statusCode()).isEqualTo(413);
    assertThat(raw(server, "/agui/" + AGENT, RcrtJson.write(input("t", "hi")), Map.of("Origin", "https://evil.example")).statusCode())
        .isEqualTo(403);
    ObjectNode unknownCall = RcrtJson.object().put("threadId", "t").put("runId", "r");
    unknownCall.putArray("resume").addObject().put("interruptId", "no-such-call").put("status", "cancelled");
    assertThat(raw(server, "/agui/" + AGENT, RcrtJson.write(unknownCall), Map.of()).statusCode()).isEqualTo(404);
    // what the HTTP server itself refuses, before any handler: JSON too, naming no Java type (the JDK's server answered
    // a bad Content-Length with "NumberFormatException thrown")
    for (String head : List.of("POST /agui/" + AGENT + " HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\n\r\n",
        "GET /agui/{x} HTTP/1.1\r\nHost: localhost\r\n\r\n")) {
      try (java.net.Socket s = new java.net.Socket(server.uri().getHost(), server.uri().getPort())) {
        s.setSoTimeout(60_000);
        s.getOutputStream().write(head.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        s.shutdownOutput();
        String answer = new String(s.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(answer).as(head).startsWith("HTTP/1.1 400").contains("{\"error\":").doesNotContain("Exception").doesNotContain("Tomcat");
      }
    }
  }

  @Test
  void beyondLoopbackATokenIsRequiredAndChecked() throws Exception {
    assertThatThrownBy(() -> server(b -> b.http("0.0.0.0", 0))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bearer token");
    AgUiServer server = server(b -> b.bearerToken("s3cret"));
    HttpResponse<String> without = raw(server, "/agui/" + AGENT, RcrtJson.write(input("t", "hi")), Map.of());
    assertThat(without.statusCode()).isEqualTo(401);
    assertThat(without.body()).doesNotContain("s3cret");
    assertThat(post(server, input("t6", "hi"), Map.of("Authorization", "Bearer s3cret"))).extracting(Sse::type).last().isEqualTo("RUN_FINISHED");
  }

  @Test
  void aStreamEndsAtItsTimeWithoutAnEndAndTheClientGoesOnWithLastEventId() throws Exception {
    dev.rcrt.testing.TestClock clock = new dev.rcrt.testing.TestClock();
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch asked = new java.util.concurrent.CountDownLatch(1);
    ToolRunner runner = ToolRunner.builder(store).timeSource(clock).build();
    open.add(runner);
    ScriptedLlmClient slow = ScriptedLlmClient.answering(r -> {
      asked.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return ChatResponse.text("late");
    });
    AgUiServer server = AgUiServer.builder(slow, runner).maxWait(Duration.ofSeconds(5)).start();
    open.add(0, server);
    ObjectNode input = input("t7", "take your time");
    java.util.concurrent.CompletableFuture<List<Sse>> cut = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
      try {
        return post(server, input);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    asked.await();
    clock.advance(Duration.ofSeconds(6)); // within the run's lease: its holder keeps it
    List<Sse> first = cut.get(30, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(first).extracting(Sse::type).containsExactly("RUN_STARTED");
    release.countDown();
    List<Sse> rest = post(server, input, Map.of("Last-Event-ID", first.get(0).id()));
    assertThat(rest).extracting(Sse::type).containsExactly("TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED");
  }

  @Test
  void aClientThatSendsTooManyRunsIsToldWhenToComeBack() throws Exception {
    dev.rcrt.testing.TestClock clock = new dev.rcrt.testing.TestClock();
    ToolRunner runner = ToolRunner.builder(store).timeSource(clock).build();
    open.add(runner);
    AgUiServer server = AgUiServer.builder(model(), runner).maxRequestsPerMinute(2).start();
    open.add(0, server);
    assertThat(post(server, input("t8", "hello"))).extracting(Sse::type).last().isEqualTo("RUN_FINISHED");
    assertThat(post(server, input("t8", "hello again"))).extracting(Sse::type).last().isEqualTo("RUN_FINISHED");
    HttpResponse<String> third = raw(server, "/agui/" + AGENT, RcrtJson.write(input("t8", "and again")), Map.of());
    assertThat(third.statusCode()).isEqualTo(429);
    assertThat(third.headers().firstValue("Retry-After")).hasValue("30");
    assertThat(store.search(Selector.schema("user.message.v1"), 10, 0)).hasSize(2); // the refused one wrote nothing
    clock.advance(Duration.ofSeconds(30));
    assertThat(post(server, input("t8", "and again"))).extracting(Sse::type).last().isEqualTo("RUN_FINISHED");
  }

  /**
   * A model that streams its answer in three fragments, a secret split over them, and waits after
   * the first until {@code go} opens.
   */
  private static final class SlowWriter implements dev.rcrt.llm.LlmClient {
    final java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);

    @Override
    public ChatResponse chat(dev.rcrt.llm.ChatRequest request) {
      throw new AssertionError("a followed run is asked with streaming");
    }

    @Override
    public ChatResponse chat(dev.rcrt.llm.ChatRequest request, dev.rcrt.llm.StreamListener listener) {
      listener.onToken("The answer is 42; the key is sk-li");
      try {
        go.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      listener.onToken("ve-0123456789");
      listener.onToken(", keep it.");
      return ChatResponse.text("The answer is 42; the key is " + KEY + ", keep it.");
    }
  }

  private static final String KEY = "sk-live-0123456789";

  /** With {@code serveRuns}, the server's executor starts the run the moment the message is written, not when the stream asks. */
  @org.junit.jupiter.params.ParameterizedTest(name = "serveRuns {0}")
  @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
  void theAnswerStreamsAsTheModelWritesItScrubbedAndTheRecordsTellTheSameTextToAClientThatReconnects(boolean serveRuns) throws Exception {
    SlowWriter model = new SlowWriter();
    ToolRunner runner = ToolRunner.builder(store).build();
    runner.addSecretValue(KEY);
    open.add(runner);
    AgUiServer server = AgUiServer.builder(model, runner).serveRuns(serveRuns).start();
    open.add(0, server);
    ObjectNode input = input("t9", "what is the answer?");
    HttpResponse<java.io.InputStream> response = http.send(HttpRequest.newBuilder(server.endpoint(AGENT))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(RcrtJson.write(input))).build(),
        HttpResponse.BodyHandlers.ofInputStream());
    List<Sse> events = new ArrayList<>();
    StringBuilder wire = new StringBuilder();
    try (BufferedReader lines = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
      String id = null;
      for (String line; (line = lines.readLine()) != null; ) {
        wire.append(line).append('\n');
        if (line.startsWith("id: ")) {
          id = line.substring(4);
        } else if (line.startsWith("data: ")) {
          Sse e = new Sse(id, RcrtJson.parse(line.substring(6)));
          id = null;
          events.add(e);
          if (e.type().equals("TEXT_MESSAGE_CONTENT") && model.go.getCount() > 0) {
            // the model is still writing: no answer is recorded, yet its first words are here
            assertThat(store.search(Selector.schema("agent.response.v1"), 10, 0)).isEmpty();
            assertThat(e.id()).startsWith("live.");
            assertThat(e.event().path("delta").asText()).isEqualTo("The answer is 42; the key is ");
            model.go.countDown();
          }
        }
      }
    }
    assertThat(model.go.getCount()).as("text streamed before the answer was recorded").isZero();
    assertThat(wire.toString()).doesNotContain("sk-").doesNotContain("0123456789");
    assertThat(events).extracting(Sse::type).startsWith("RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT")
        .endsWith("TEXT_MESSAGE_END", "RUN_FINISHED")
        .containsOnlyOnce("TEXT_MESSAGE_START", "TEXT_MESSAGE_END");
    String messageId = events.get(1).event().path("messageId").asText();
    String streamed = String.join("", events.stream().filter(e -> e.type().equals("TEXT_MESSAGE_CONTENT"))
        .map(e -> e.event().path("delta").asText()).toList());
    assertThat(streamed).isEqualTo("The answer is 42; the key is [secret], keep it.");
    assertThat(events).filteredOn(e -> e.type().startsWith("TEXT_MESSAGE")).allSatisfy(e ->
        assertThat(e.event().path("messageId").asText()).isEqualTo(messageId));
    assertThat(events.get(events.size() - 2).id()).as("the end of the text has the record's id").doesNotStartWith("live.");

    // a client that lost the stream after the first words gets the rest of the text, from another process
    Sse firstWords = events.stream().filter(e -> e.type().equals("TEXT_MESSAGE_CONTENT")).findFirst().orElseThrow();
    ToolRunner otherRunner = ToolRunner.builder(store).build();
    open.add(otherRunner);
    AgUiServer other = AgUiServer.builder(model, otherRunner).start();
    open.add(0, other);
    List<Sse> rest = post(other, input, Map.of("Last-Event-ID", firstWords.id()));
    assertThat(rest).extracting(Sse::type).containsExactly("TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED");
    assertThat(firstWords.event().path("delta").asText() + rest.get(0).event().path("delta").asText()).isEqualTo(streamed);
    assertThat(rest.get(0).event().path("messageId").asText()).isEqualTo(messageId);

    // a client that lost the stream after RUN_STARTED gets the whole text from the records, under the same message id
    List<Sse> again = post(server, input, Map.of("Last-Event-ID", events.get(0).id()));
    assertThat(again).extracting(Sse::type).containsExactly("TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED");
    assertThat(again.get(1).event().path("delta").asText()).isEqualTo(streamed);
    assertThat(again.get(1).event().path("messageId").asText()).isEqualTo(messageId);
  }
}
