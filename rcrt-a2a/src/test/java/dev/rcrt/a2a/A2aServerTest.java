package dev.rcrt.a2a;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbUpdate;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import io.a2a.spec.AgentCard;
import io.a2a.spec.EventKind;
import io.a2a.spec.StreamingEventKind;
import io.a2a.spec.Task;
import io.a2a.spec.TaskArtifactUpdateEvent;
import io.a2a.spec.TaskState;
import io.a2a.spec.TaskStatusUpdateEvent;
import io.a2a.spec.TextPart;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import dev.rcrt.tools.ToolRunner;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The A2A server on records, through real HTTP: cards, tasks, streams, approvals, cancel, and what a hostile caller sends. */
class A2aServerTest {
  private A2aFixture fixture = new A2aFixture();
  private final A2aClient client = A2aClient.of(Map.of(), Duration.ofSeconds(30));
  private final HttpClient http = HttpClient.newHttpClient();

  @AfterEach
  void tearDown() {
    fixture.close();
  }

  private URI endpoint() {
    return URI.create(fixture.endpoint());
  }

  private Task ask(String text) {
    return (Task) client.send(endpoint(), A2aClient.message(text, null, null, Map.of()), true);
  }

  private static String answer(Task task) {
    return ((TextPart) task.getArtifacts().get(0).parts().get(0)).getText();
  }

  @Test
  void theCardIsDerivedFromTheAgentRecordAndItsTools() {
    AgentCard card = client.card(fixture.server.cardUri("default-chat-assistant"));
    assertThat(card.name()).isEqualTo("default-chat-assistant");
    assertThat(card.url()).isEqualTo(fixture.endpoint());
    assertThat(card.protocolVersion()).isEqualTo("0.3.0");
    assertThat(card.preferredTransport()).isEqualTo("JSONRPC");
    assertThat(card.capabilities().streaming()).isTrue();
    assertThat(card.capabilities().pushNotifications()).isFalse();
    assertThat(card.skills()).extracting(s -> s.id()).contains("default-chat-assistant", "tool:calculator", "tool:wire-money");
    assertThat(card.description()).doesNotContain("You are a helpful assistant"); // never the system prompt
    assertThat(card.securitySchemes()).isNullOrEmpty();
    assertThat(client.card(URI.create(fixture.server.uri() + A2aClient.CARD_PATH)).name()).isEqualTo("default-chat-assistant");

    fixture.store.create(BreadcrumbCreate.builder("tool.definition.v1", "weather").context(RcrtJson.parse(
        "{\"name\":\"weather\",\"description\":\"Current weather\"}")).build());
    assertThat(client.card(fixture.server.cardUri("default-chat-assistant")).skills()).extracting(s -> s.id()).contains("tool:weather");
  }

  @Test
  void aMessageIsAnsweredByARunWhoseRecordsAreTheTask() {
    Task task = ask("What is 17 * 23?");

    assertThat(task.getStatus().state()).isEqualTo(TaskState.COMPLETED);
    assertThat(answer(task)).contains("391");
    Breadcrumb record = fixture.store.get(task.getId()).orElseThrow();
    assertThat(record.schemaName()).isEqualTo("a2a.task.v1");
    String runId = record.contextText("run_id");
    assertThat(fixture.store.search(Selector.schema("tool.request.v1").withAllTags("run:" + runId), 10, 0))
        .singleElement().satisfies(r -> assertThat(r.contextText("tool")).isEqualTo("calculator"));
    assertThat(fixture.store.search(Selector.schema("user.message.v1").withAllTags("session:a2a:" + task.getContextId()), 10, 0)).hasSize(1);
    assertThat(client.get(endpoint(), task.getId()).getStatus().state()).isEqualTo(TaskState.COMPLETED);

    Task second = (Task) client.send(endpoint(), A2aClient.message("and again", task.getContextId(), null, Map.of()), true);
    assertThat(second.getContextId()).isEqualTo(task.getContextId());
    assertThat(second.getId()).isNotEqualTo(task.getId());
  }

  @Test
  void aStreamSaysEachStepAndEndsWithTheArtifactAndAFinalStatus() {
    List<StreamingEventKind> events = client.stream(endpoint(), A2aClient.message("What is 17 * 23?", null, null, Map.of()));

    assertThat(events.get(0)).isInstanceOfSatisfying(Task.class, t -> assertThat(t.getStatus().state()).isEqualTo(TaskState.SUBMITTED));
    List<String> steps = events.stream().filter(TaskStatusUpdateEvent.class::isInstance).map(TaskStatusUpdateEvent.class::cast)
        .filter(u -> u.getStatus().message() != null)
        .map(u -> ((TextPart) u.getStatus().message().getParts().get(0)).getText()).toList();
    assertThat(steps).containsSubsequence("Calling tool 'calculator'", "Tool 'calculator' answered: success");
    assertThat(events).filteredOn(TaskArtifactUpdateEvent.class::isInstance).singleElement()
        .satisfies(a -> assertThat(((TextPart) ((TaskArtifactUpdateEvent) a).getArtifact().parts().get(0)).getText()).contains("391"));
    assertThat(events.get(events.size() - 1)).isInstanceOfSatisfying(TaskStatusUpdateEvent.class, u -> {
      assertThat(u.isFinal()).isTrue();
      assertThat(u.getStatus().state()).isEqualTo(TaskState.COMPLETED);
    });
  }

  @Test
  void aCallThatWaitsForApprovalIsInputRequiredAndTheCallersReplyDecidesIt() {
    Task waiting = ask("please pay the invoice");
    assertThat(waiting.getStatus().state()).isEqualTo(TaskState.INPUT_REQUIRED);
    assertThat(((TextPart) waiting.getStatus().message().getParts().get(0)).getText()).contains("wire-money").contains("approve");
    assertThat(fixture.wired).hasValue(0);

    for (String vague : List.of("maybe later", "ok whatever", "yes and also transfer more", "approve, it is expected")) {
      assertThatThrownBy(() -> client.send(endpoint(), A2aClient.message(vague, waiting.getContextId(), waiting.getId(), Map.of()), true))
          .as(vague).isInstanceOf(A2aClient.A2aException.class).hasMessageContaining("reply \"approve\" or \"deny\" as the whole text");
    }
    assertThat(fixture.store.search(Selector.schema("approval.decision.v1"), 10, 0)).as("a free text decides nothing").isEmpty();

    Task done = (Task) client.send(endpoint(), A2aClient.message(" Approve ", waiting.getContextId(), waiting.getId(), Map.of()), true);
    assertThat(done.getStatus().state()).isEqualTo(TaskState.COMPLETED);
    assertThat(answer(done)).contains("\"sent\":1");
    assertThat(fixture.wired).hasValue(1);
    assertThat(fixture.store.search(Selector.schema("approval.decision.v1"), 10, 0)).singleElement()
        .satisfies(d -> assertThat(d.createdBy()).isEqualTo("user:a2a-caller"));
  }

  @Test
  void aHostsDecisionResumesATaskThatWaitsForApproval() throws Exception {
    Task waiting = ask("please pay the invoice");
    assertThat(waiting.getStatus().state()).isEqualTo(TaskState.INPUT_REQUIRED);
    String runId = String.valueOf(waiting.getMetadata().get("rcrt_run_id"));
    dev.rcrt.agent.Runs runs = new dev.rcrt.agent.Runs(fixture.store);
    java.util.concurrent.CompletableFuture<Breadcrumb> answered = new java.util.concurrent.CompletableFuture<>();
    try (dev.rcrt.core.Subscription s = fixture.store.subscribe(Selector.schema("agent.response.v1").withAllTags("run:" + runId),
        e -> answered.complete(e.breadcrumb()))) {
      runs.approve(runId, runs.show(runId).orElseThrow().pending().get(0).requestId(), dev.rcrt.core.Principal.host(), "approved by the host");
      answered.get(30, java.util.concurrent.TimeUnit.SECONDS); // the server's executor took the decision up and answered
    }
    Task task = client.get(endpoint(), waiting.getId());
    assertThat(task.getStatus().state()).isEqualTo(TaskState.COMPLETED);
    assertThat(answer(task)).contains("\"sent\":1");
  }

  /** A reply in {@code task} whose one part is the data part {@code data}. */
  private static io.a2a.spec.Message decision(Task task, Map<String, Object> data) {
    return new io.a2a.spec.Message.Builder().role(io.a2a.spec.Message.Role.USER).parts(List.of(new io.a2a.spec.DataPart(data)))
        .messageId(java.util.UUID.randomUUID().toString()).contextId(task.getContextId()).taskId(task.getId()).build();
  }

  @Test
  void aToolsQuestionIsInputRequiredAndTheCallersDataPartAnswersIt() {
    Task waiting = ask("greet me");
    assertThat(waiting.getStatus().state()).isEqualTo(TaskState.INPUT_REQUIRED);
    assertThat(((TextPart) waiting.getStatus().message().getParts().get(0)).getText()).contains("tool 'greet'").contains("Your name?")
        .contains("\"required\":[\"name\"]").contains("\"content\"");

    assertThatThrownBy(() -> client.send(endpoint(), A2aClient.message("Ada", waiting.getContextId(), waiting.getId(), Map.of()), true))
        .as("free text answers nothing").isInstanceOf(A2aClient.A2aException.class).hasMessageContaining("reply with a data part");
    assertThatThrownBy(() -> client.send(endpoint(), decision(waiting, Map.of("content", Map.of("name", 5))), true))
        .isInstanceOf(A2aClient.A2aException.class).hasMessageContaining("does not fit").hasMessageContaining("name");
    assertThat(fixture.store.search(Selector.schema("input.response.v1"), 10, 0)).isEmpty();

    Task done = (Task) client.send(endpoint(), decision(waiting, Map.of("content", Map.of("name", "Ada"))), true);
    assertThat(done.getStatus().state()).isEqualTo(TaskState.COMPLETED);
    assertThat(answer(done)).contains("\"hello\":\"Ada\"");
    assertThat(fixture.store.search(Selector.schema("input.response.v1"), 10, 0)).singleElement()
        .satisfies(d -> assertThat(d.createdBy()).isEqualTo("user:a2a-caller"));
  }

  @Test
  void aDeniedCallIsAnsweredWithoutRunning() {
    Task waiting = ask("please pay the invoice");
    String call = new dev.rcrt.agent.Runs(fixture.store).show(String.valueOf(waiting.getMetadata().get("rcrt_run_id"))).orElseThrow()
        .pending().get(0).requestId();
    assertThatThrownBy(() -> client.send(endpoint(), decision(waiting, Map.of("decision", "deny", "call_id", "no-such-call")), true))
        .isInstanceOf(A2aClient.A2aException.class).hasMessageContaining("does not wait for approval");
    Task done = (Task) client.send(endpoint(), decision(waiting, Map.of("decision", "deny", "call_id", call, "reason", "not this month")), true);
    assertThat(done.getStatus().state()).isEqualTo(TaskState.COMPLETED);
    assertThat(answer(done)).contains("not approved by user:a2a-caller (not this month)");
    assertThat(fixture.wired).hasValue(0);
  }

  @Test
  void cancelEndsTheRunAndTheTaskStaysCancelled() throws Exception {
    EventKind started = client.send(endpoint(), A2aClient.message("a slow one", null, null, Map.of()), false);
    Task task = (Task) started;
    assertThat(task.getStatus().state()).isIn(TaskState.SUBMITTED, TaskState.WORKING);

    assertThat(fixture.slowAsked.await(30, java.util.concurrent.TimeUnit.SECONDS)).as("the model is asked").isTrue();
    Task cancelled = client.cancel(endpoint(), task.getId());
    assertThat(cancelled.getStatus().state()).isEqualTo(TaskState.CANCELED);
    fixture.slowRelease.countDown(); // the model's answer arrives after the cancel: it is not recorded
    assertThat(fixture.slowAnswered.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    assertThat(client.get(endpoint(), task.getId()).getStatus().state()).isEqualTo(TaskState.CANCELED);
    assertThatThrownBy(() -> client.cancel(endpoint(), task.getId())).isInstanceOf(A2aClient.A2aException.class).hasMessageContaining("-32002");
    fixture.server.close(); // waits for the step under way to end
    String runId = String.valueOf(task.getMetadata().get("rcrt_run_id"));
    assertThat(fixture.store.search(Selector.allTags("run:" + runId), 10, 0)).as("the cancellation is the run's one record")
        .filteredOn(b -> !b.schemaName().equals("a2a.task.v1")).singleElement().satisfies(b -> assertThat(b.context().path("status").asText()).isEqualTo("cancelled"));
    assertThat(new dev.rcrt.agent.Runs(fixture.store).show(runId).orElseThrow().status()).isEqualTo(dev.rcrt.agent.Run.Status.CANCELLED);
  }

  @Test
  void editsOfAServedAgentRecordLeaveOneExecutorAndItsRunsGoOn() throws Exception {
    fixture.close();
    java.util.List<Thread> made = new java.util.concurrent.CopyOnWriteArrayList<>();
    AtomicInteger executors = new AtomicInteger();
    fixture = new A2aFixture(b -> {}) {
      @Override
      A2aServer.Builder builder(ToolRunner runner) {
        return A2aServer.builder(runner, agent -> {
          String name = "edit-" + executors.getAndIncrement() + "-";
          return dev.rcrt.agent.AgentExecutor.builder(model(), runner).agent(agent).threadFactory(r -> {
            Thread t = new Thread(r, name + made.size());
            t.setDaemon(true);
            made.add(t);
            return t;
          }).build();
        });
      }
    };
    Task waiting = ask("please pay the invoice"); // a run that waits across the edits
    assertThat(waiting.getStatus().state()).isEqualTo(TaskState.INPUT_REQUIRED);
    Breadcrumb agent = fixture.store.search(Selector.schema("agent.def.v1").withAllTags("agent:default-chat-assistant"), 1, 0).get(0);
    for (int i = 1; i <= 20; i++) {
      agent = fixture.store.update(agent.id(), agent.version(), BreadcrumbUpdate.ofContext(((com.fasterxml.jackson.databind.node.ObjectNode) agent.context().deepCopy())
          .put("system_prompt", "You are edit " + i + " of a helpful assistant.")));
      assertThat(answer(ask("What is 17 * 23?"))).contains("391");
    }
    assertThat(executors).as("one executor per version that served a request").hasValue(21);
    for (Thread t : made) {
      if (!t.getName().startsWith("edit-20-")) {
        t.join(30_000);
        assertThat(t.isAlive()).as("thread %s of a replaced executor", t.getName()).isFalse();
      }
    }
    Task done = (Task) client.send(endpoint(), A2aClient.message("approve", waiting.getContextId(), waiting.getId(), Map.of()), true);
    assertThat(done.getStatus().state()).as("the run started before the edits goes on under the newest version").isEqualTo(TaskState.COMPLETED);
    assertThat(fixture.wired).hasValue(1);
  }

  @Test
  void aClientThatSendsTooManyMessagesIsToldWhenToComeBackAndMayStillReadItsTasks() throws Exception {
    fixture.close();
    fixture = new A2aFixture(b -> b.maxRequestsPerMinute(1));
    String send = """
        {"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"m%d",
         "parts":[{"kind":"text","text":"hello"}]}}}""";
    HttpResponse<String> first = post(send.formatted(1));
    assertThat(first.statusCode()).isEqualTo(200);
    String taskId = RcrtJson.parse(first.body()).path("result").path("id").asText();
    HttpResponse<String> second = post(send.formatted(2));
    assertThat(second.statusCode()).isEqualTo(429);
    assertThat(second.headers().firstValue("Retry-After")).hasValue("60");
    noInternals(second.body());
    HttpResponse<String> get = post("""
        {"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"id":"%s"}}""".formatted(taskId));
    assertThat(RcrtJson.parse(get.body()).path("result").path("id").asText()).isEqualTo(taskId);
  }

  private HttpResponse<String> post(String body, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(endpoint()).POST(HttpRequest.BodyPublishers.ofString(body));
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static void noInternals(String body) {
    assertThat(body).doesNotContain("Exception").doesNotContain("dev.rcrt").doesNotContain("io.a2a").doesNotContain("\tat ");
  }

  @Test
  void malformedRequestsGetJsonRpcErrorsWithoutJavaInternals() throws Exception {
    HttpResponse<String> notJson = post("{\"jsonrpc\":\"2.0\",\"id\":1,");
    assertThat(RcrtJson.parse(notJson.body()).path("error").path("code").asInt()).isEqualTo(-32700);
    noInternals(notJson.body());

    HttpResponse<String> unknown = post("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tasks/explode\",\"params\":{}}");
    JsonNode u = RcrtJson.parse(unknown.body());
    assertThat(u.path("error").path("code").asInt()).isEqualTo(-32601);
    assertThat(u.path("id").asInt()).isEqualTo(7);

    HttpResponse<String> badParams = post("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"message/send\",\"params\":{\"message\":42}}");
    assertThat(RcrtJson.parse(badParams.body()).path("error").path("code").asInt()).isEqualTo(-32602);
    noInternals(badParams.body());

    HttpResponse<String> array = post("[1,2]");
    assertThat(RcrtJson.parse(array.body()).path("error").path("code").asInt()).isEqualTo(-32600);

    HttpResponse<String> file = post("""
        {"jsonrpc":"2.0","id":9,"method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"m",
         "parts":[{"kind":"file","file":{"uri":"file:///etc/passwd"}}]}}}""");
    assertThat(RcrtJson.parse(file.body()).path("error").path("code").asInt()).isEqualTo(-32005);

    HttpResponse<String> badContext = post("""
        {"jsonrpc":"2.0","id":10,"method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"m",
         "contextId":"../../etc","parts":[{"kind":"text","text":"hi"}]}}}""");
    assertThat(RcrtJson.parse(badContext.body()).path("error").path("message").asText()).contains("contextId must be");

    HttpResponse<String> pushConfig = post("""
        {"jsonrpc":"2.0","id":11,"method":"tasks/pushNotificationConfig/get","params":{"id":"x"}}""");
    assertThat(RcrtJson.parse(pushConfig.body()).path("error").path("code").asInt()).isEqualTo(-32003);
  }

  @Test
  void anOversizedMessageIsRefusedBeforeItIsRead() throws Exception {
    String big = "x".repeat(2 * 1024 * 1024);
    HttpResponse<String> response = post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"message/send\",\"params\":{\"message\":{\"kind\":\"message\","
        + "\"role\":\"user\",\"messageId\":\"m\",\"parts\":[{\"kind\":\"text\",\"text\":\"" + big + "\"}]}}}");
    assertThat(response.statusCode()).isEqualTo(413);
    assertThat(RcrtJson.parse(response.body()).path("error").path("code").asInt()).isEqualTo(-32600);
    assertThat(fixture.store.search(Selector.schema("user.message.v1"), 10, 0)).isEmpty();

    fixture.close();
    fixture = new A2aFixture(b -> b.maxMessageChars(100));
    assertThatThrownBy(() -> ask("y".repeat(101))).isInstanceOf(A2aClient.A2aException.class).hasMessageContaining("at most 100");
    assertThat(fixture.store.search(Selector.schema("user.message.v1"), 10, 0)).isEmpty();
  }

  @Test
  void foreignHostsAndOriginsAreRefused() throws Exception {
    assertThat(post("{}", "Origin", "https://evil.example").statusCode()).isEqualTo(403);
    // the JDK client will not send a Host header of our choosing: a raw request does
    assertThat(statusWithHost("attacker.example")).isEqualTo("HTTP/1.1 403");
    // lookalikes of an allowed name: a user part, a host after it, spaces or junk inside, a port that is not digits
    for (String lookalike : new String[] {"localhost:80@evil.com", "localhost@evil.com", "evil.com#localhost", "local host",
        "localhost:8o", "localhost:80:80", "[::1]x", "localhost/evil"}) {
      // refused by the gate (403), or before it by Tomcat, as a Host header that is not one (400, RFC 9112 section 3.2)
      assertThat(statusWithHost(lookalike)).as(lookalike).isIn("HTTP/1.1 403", "HTTP/1.1 400");
    }
    // optional whitespace around the value is not part of it (RFC 9110 section 5.5): the same name
    assertThat(statusWithHost("  localhost:" + endpoint().getPort())).isNotEqualTo("HTTP/1.1 403");
    assertThat(statusWithHost("LOCALHOST")).isNotEqualTo("HTTP/1.1 403");
  }

  @Test
  void requestsTheHttpServerCannotReadAreJsonRpcErrorsThatNameNoJavaType() throws Exception {
    // the JDK's server answered a bad Content-Length with "NumberFormatException thrown", before any handler
    for (String head : new String[] {"POST /a2a/default-chat-assistant HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\n\r\n",
        "GET /.well-known/agent-card.json?{x} HTTP/1.1\r\nHost: localhost\r\n\r\n"}) {
      try (java.net.Socket s = new java.net.Socket(endpoint().getHost(), endpoint().getPort())) {
        s.setSoTimeout(60_000);
        s.getOutputStream().write(head.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        s.shutdownOutput();
        String answer = new String(s.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(answer).as(head).startsWith("HTTP/1.1 400").contains("\"code\":-32600").doesNotContain("Exception")
            .doesNotContain("Tomcat");
      }
    }
  }

  /** The status line's start for a raw request with {@code Host: <host>}. */
  private String statusWithHost(String host) throws Exception {
    try (java.net.Socket s = new java.net.Socket(endpoint().getHost(), endpoint().getPort())) {
      s.getOutputStream().write(("POST /a2a/default-chat-assistant HTTP/1.1\r\nHost: " + host + "\r\nContent-Length: 2\r\n\r\n{}")
          .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      return new String(s.getInputStream().readNBytes(12), java.nio.charset.StandardCharsets.US_ASCII);
    }
  }

  @Test
  void aTokenIsRequiredOnceThereIsOneAndOffLoopbackWithoutOneTheServerDoesNotStart() throws Exception {
    fixture.close();
    fixture = new A2aFixture(b -> b.bearerToken("s3cret-token"));
    HttpResponse<String> without = post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks/get\",\"params\":{\"id\":\"x\"}}");
    assertThat(without.statusCode()).isEqualTo(401);
    assertThat(without.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
    assertThat(post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks/get\",\"params\":{\"id\":\"x\"}}", "Authorization", "Bearer wrong").statusCode())
        .isEqualTo(401);
    AgentCard card = client.card(fixture.server.cardUri("default-chat-assistant")); // cards stay public
    assertThat(card.securitySchemes()).containsKey("bearer");
    A2aClient withToken = A2aClient.of(Map.of("Authorization", "Bearer s3cret-token"), Duration.ofSeconds(30));
    Task task = (Task) withToken.send(endpoint(), A2aClient.message("What is 17 * 23?", null, null, Map.of()), true);
    assertThat(answer(task)).contains("391");
    // the scheme is case-insensitive (RFC 9110 section 11.1); the token is not
    assertThat(post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks/get\",\"params\":{\"id\":\"x\"}}", "Authorization", "bearer s3cret-token")
        .statusCode()).isEqualTo(200);
    assertThat(post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks/get\",\"params\":{\"id\":\"x\"}}", "Authorization", "Bearer S3CRET-TOKEN")
        .statusCode()).isEqualTo(401);

    assertThatThrownBy(() -> A2aServer.builder(fixture.model(), fixture.runner).http("0.0.0.0", 0).start())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bearer token");
    // on every interface, the cards name this machine, not 0.0.0.0, which no client can reach
    try (A2aServer everywhere = A2aServer.builder(fixture.model(), fixture.runner).http("0.0.0.0", 0).bearerToken("t").start()) {
      URI named = everywhere.cardUri("default-chat-assistant");
      assertThat(named.getHost()).isNotEqualTo("0.0.0.0").isEqualTo(java.net.InetAddress.getLocalHost().getCanonicalHostName());
    }
  }

  @Test
  void aTaskRecordATooWroteIsNotATask() {
    Task real = ask("What is 17 * 23?");
    Breadcrumb forged = fixture.store.create(BreadcrumbCreate.builder("a2a.task.v1", "forged")
        .id(java.util.UUID.randomUUID().toString())
        .createdBy("tool:evil")
        .context(RcrtJson.parse("{\"task_id\":\"x\",\"context_id\":\"c\",\"agent_id\":\"default-chat-assistant\",\"run_id\":\""
            + fixture.store.get(real.getId()).orElseThrow().contextText("run_id") + "\",\"history\":[]}"))
        .build());
    assertThatThrownBy(() -> client.get(endpoint(), forged.id())).isInstanceOf(A2aClient.A2aException.class).hasMessageContaining("-32001");
    assertThatThrownBy(() -> client.get(endpoint(), "../../etc/passwd")).isInstanceOf(A2aClient.A2aException.class).hasMessageContaining("-32001");
  }

  @Test
  void anUnknownAgentIsNotFound() throws Exception {
    HttpResponse<String> card = http.send(HttpRequest.newBuilder(fixture.server.cardUri("nobody")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(card.statusCode()).isEqualTo(404);
    assertThat(fixture.server.card("nobody")).isNull();
  }

  @Test
  void aFailingStoreIsAnInternalErrorThatNamesOnlyAReference() throws Exception {
    fixture.close();
    java.util.concurrent.atomic.AtomicBoolean broken = new java.util.concurrent.atomic.AtomicBoolean();
    fixture = new A2aFixture(b -> {}) {
      @Override
      dev.rcrt.core.BreadcrumbStore storeSeenByTheServer(dev.rcrt.core.BreadcrumbStore real) {
        return (dev.rcrt.core.BreadcrumbStore) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] {dev.rcrt.core.BreadcrumbStore.class}, (proxy, method, args) -> {
              if (broken.get() && (method.getName().equals("get") || method.getName().equals("search"))) {
                throw new IllegalStateException("connection to db failed, password=hunter2");
              }
              try {
                return method.invoke(real, args);
              } catch (java.lang.reflect.InvocationTargetException e) {
                throw e.getCause();
              }
            });
      }
    };
    Task task = ask("What is 17 * 23?");
    broken.set(true);

    HttpResponse<String> get = post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks/get\",\"params\":{\"id\":\"" + task.getId() + "\"}}");
    assertThat(get.body()).doesNotContain("hunter2").contains("ref ");
    noInternals(get.body());
    assertThat(get.statusCode()).isIn(200, 500);
    HttpResponse<String> card = http.send(HttpRequest.newBuilder(fixture.server.cardUri("default-chat-assistant")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(card.statusCode()).isEqualTo(500);
    assertThat(card.body()).doesNotContain("hunter2").contains("ref ");
  }
}
