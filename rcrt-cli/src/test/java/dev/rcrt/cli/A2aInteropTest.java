package dev.rcrt.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.postgres.PostgresBreadcrumbStore;
import dev.rcrt.postgres.TestPostgres;
import dev.rcrt.testing.LogWaits;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A2A both ways against the official JavaScript SDK ({@code @a2a-js/sdk} 0.3.14, protocol 0.3.0,
 * from the npm registry on Node 22): its client talks to two {@code ./rcrt a2a serve} processes on
 * one PostgreSQL store (answer, stream, a task read and cancelled through the other process, an
 * approval as {@code input-required}), and an agent served with its server API is imported with
 * {@code ./rcrt a2a import} and called by an agent of ours in {@code ./rcrt chat}, and cut off at its
 * deadline when it never finishes. The model is a scripted OpenAI-compatible endpoint.
 */
class A2aInteropTest {
  private static final Pattern LISTENING = Pattern.compile("listening on (http://127\\.0\\.0\\.1:\\d+)");

  @TempDir Path dir;

  private HttpServer http;
  private final AtomicInteger paid = new AtomicInteger();
  /** The "slow" question's model call: told when it arrives, held until the test opens the gate, told when answered. */
  private volatile Slow slow = new Slow();
  private final List<Process> processes = new ArrayList<>();
  private String storeUrl;
  private PostgresBreadcrumbStore store;

  @BeforeEach
  void setUp() throws IOException {
    http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    http.setExecutor(Executors.newCachedThreadPool());
    http.createContext("/v1/chat/completions", this::model);
    http.createContext("/pay", ex -> respond(ex, "{\"paid\":" + paid.incrementAndGet() + "}"));
    http.start();
    String schema = TestPostgres.freshSchema();
    storeUrl = TestPostgres.storeUrl(schema);
    store = PostgresBreadcrumbStore.builder(TestPostgres.dataSource()).schema(schema).build();
  }

  @AfterEach
  void tearDown() {
    processes.forEach(Process::destroyForcibly);
    http.stop(0);
    store.close();
  }

  private String modelUrl() {
    return "http://127.0.0.1:" + http.getAddress().getPort() + "/v1";
  }

  /**
   * The scripted model: after a tool's result it answers "The answer is RESULT"; otherwise "17 * 23"
   * calls the calculator, "pay" the pay tool, "shipping" the imported parcel tool, and "slow" answers
   * when the test opens {@link #slow}'s gate (60 s at most).
   */
  private void model(HttpExchange exchange) throws IOException {
    Slow held = slow;
    boolean[] wasSlow = {false};
    try {
      answer(exchange, held, wasSlow);
    } finally {
      if (wasSlow[0]) {
        held.answered.release();
      }
    }
  }

  private void answer(HttpExchange exchange, Slow held, boolean[] wasSlow) throws IOException {
    JsonNode request = RcrtJson.parse(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
    JsonNode messages = request.path("messages");
    JsonNode last = messages.get(messages.size() - 1);
    String said = "";
    for (JsonNode m : messages) {
      if (m.path("role").asText().equals("user")) {
        said = m.path("content").asText("");
      }
    }
    ObjectNode message = RcrtJson.object().put("role", "assistant");
    String call = null;
    String arguments = "{}";
    if (last.path("role").asText().equals("tool")) {
      message.put("content", "The answer is " + last.path("content").asText());
    } else if (said.contains("17 * 23")) {
      call = "calculator";
      arguments = "{\"expression\":\"17 * 23\"}";
    } else if (said.contains("pay")) {
      call = "pay";
    } else if (said.contains("shipping")) {
      for (JsonNode tool : request.path("tools")) {
        if (tool.path("function").path("name").asText().startsWith("parcels")) {
          call = tool.path("function").path("name").asText();
        }
      }
      arguments = RcrtJson.write(RcrtJson.object().put("message", said));
    } else {
      if (said.contains("slow")) {
        wasSlow[0] = true;
        held.asked.release();
        try {
          if (!held.gate.await(60, TimeUnit.SECONDS)) {
            throw new IOException("the test never opened the slow answer's gate");
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      message.put("content", "You said: " + said);
    }
    if (call != null) {
      message.putNull("content");
      message.putArray("tool_calls").addObject().put("id", "call_1").put("type", "function")
          .putObject("function").put("name", call).put("arguments", arguments);
    }
    ObjectNode body = RcrtJson.object().put("id", "c").put("object", "chat.completion").put("model", "scripted");
    body.putArray("choices").addObject().put("index", 0).put("finish_reason", call != null ? "tool_calls" : "stop").set("message", message);
    respond(exchange, RcrtJson.write(body));
  }

  private static void respond(HttpExchange exchange, String json) throws IOException {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(200, bytes.length);
    exchange.getResponseBody().write(bytes);
    exchange.close();
  }

  /** Starts {@code ./rcrt a2a serve} on the shared store in a JVM of its own; returns its base URL. */
  private String serve(String name) throws Exception {
    return serve(name, new Process[1], 1500);
  }

  /** {@link #serve(String)}, holding runs with a lease of {@code leaseMillis}, the process in {@code started[0]}. */
  private String serve(String name, Process[] started, int leaseMillis) throws Exception {
    Path log = dir.resolve(name + ".log");
    Process p = TestJvm.start(List.of(), List.of("dev.rcrt.cli.Main", "a2a", "serve", "--store", storeUrl, "--http", "127.0.0.1:0",
        "--base-url", modelUrl(), "--model", "scripted", "--allow-network", "127.0.0.0/8", "--lease", String.valueOf(leaseMillis)), log);
    processes.add(p);
    started[0] = p;
    LogWaits.until(log, "A2A server listening on", p, Duration.ofSeconds(120));
    Matcher m = LISTENING.matcher(Files.readString(log));
    assertThat(m.find()).isTrue();
    return m.group(1);
  }

  /** The JavaScript SDK's client: {@code client.mjs CARD_URL OP ARGS...}, one JSON document per line. */
  private static List<JsonNode> js(String cardUrl, String... opAndArgs) throws Exception {
    Path node = NodeTools.a2aNode();
    Path script = script("client.mjs");
    List<String> command = new ArrayList<>(List.of(node.toString(), script.toString(), cardUrl));
    command.addAll(List.of(opAndArgs));
    NodeTools.Result r = NodeTools.run(command, Map.of(), 120);
    assertThat(r.exit()).as(r.output()).isZero();
    List<JsonNode> out = new ArrayList<>();
    for (String line : r.output().split("\n")) {
      if (line.startsWith("{")) {
        out.add(RcrtJson.parse(line));
      }
    }
    assertThat(out).as(r.output()).isNotEmpty();
    return out;
  }

  /** A test script copied beside the SDK's node_modules, where Node resolves its imports. */
  private static Path script(String name) throws IOException {
    Path target = NodeTools.A2A_DIR.resolve(name);
    try (InputStream in = A2aInteropTest.class.getResourceAsStream("/a2a/" + name)) {
      Files.copy(java.util.Objects.requireNonNull(in, name), target, StandardCopyOption.REPLACE_EXISTING);
    }
    return target;
  }

  private static String card(String base) {
    return base + "/a2a/default-chat-assistant/.well-known/agent-card.json";
  }

  private static String artifactText(JsonNode task) {
    return task.path("artifacts").path(0).path("parts").path(0).path("text").asText();
  }

  @Test
  void theJavaScriptClientGets391StreamsCancelsAndReadsTasksThroughAnotherServer() throws Exception {
    Process[] aProcess = new Process[1];
    Process[] bProcess = new Process[1];
    String a = serve("a", aProcess, 1500);
    String b = serve("b", bProcess, 1500);

    JsonNode card = js(card(a), "card").get(0);
    assertThat(card.path("skills").toString()).contains("tool:calculator");
    assertThat(card.path("capabilities").path("streaming").asBoolean()).isTrue();

    JsonNode task = js(card(a), "ask", "What is 17 * 23?").get(0);
    assertThat(task.path("kind").asText()).isEqualTo("task");
    assertThat(task.path("status").path("state").asText()).isEqualTo("completed");
    assertThat(artifactText(task)).contains("391");

    List<JsonNode> events = js(card(a), "stream", "What is 17 * 23?");
    assertThat(events.get(0).path("kind").asText()).isEqualTo("task");
    assertThat(events.get(0).path("status").path("state").asText()).isEqualTo("submitted");
    assertThat(events).anySatisfy(e -> assertThat(e.path("status").path("message").path("parts").path(0).path("text").asText())
        .isEqualTo("Calling tool 'calculator'"));
    assertThat(events).anySatisfy(e -> {
      assertThat(e.path("kind").asText()).isEqualTo("artifact-update");
      assertThat(e.path("artifact").path("parts").path(0).path("text").asText()).contains("391");
    });
    JsonNode end = events.get(events.size() - 1);
    assertThat(end.path("kind").asText()).isEqualTo("status-update");
    assertThat(end.path("final").asBoolean()).isTrue();
    assertThat(end.path("status").path("state").asText()).isEqualTo("completed");

    JsonNode elsewhere = js(card(b), "get", task.path("id").asText()).get(0);
    assertThat(elsewhere.path("status").path("state").asText()).isEqualTo("completed");
    assertThat(artifactText(elsewhere)).contains("391");

    Slow held = slow;
    JsonNode started = js(card(a), "start", "a slow question").get(0);
    assertThat(started.path("status").path("state").asText()).isIn("submitted", "working");
    // the run is a's message, but the servers are one fleet: either may hold the run and ask the model
    assertThat(held.asked.tryAcquire(60, TimeUnit.SECONDS)).as("a server asks the model").isTrue();
    JsonNode cancelled = js(card(b), "cancel", started.path("id").asText()).get(0);
    assertThat(cancelled.path("status").path("state").asText()).isEqualTo("canceled");
    List<Path> logs = List.of(dir.resolve("a.log"), dir.resolve("b.log"));
    int abandoned = LogWaits.count(logs, "abandoned its step of run"); // steps dropped before (a fleet may drop one now and then)
    held.gate.countDown(); // the slow answer arrives after the cancel
    assertThat(held.answered.tryAcquire(60, TimeUnit.SECONDS)).as("the model answered").isTrue();
    // and the server that asked drops it, and says so
    LogWaits.until(logs, "abandoned its step of run", abandoned + 1, List.of(aProcess[0], bProcess[0]), Duration.ofSeconds(60));
    assertThat(js(card(a), "get", started.path("id").asText()).get(0).path("status").path("state").asText()).isEqualTo("canceled");
    String runId = cancelled.path("metadata").path("rcrt_run_id").asText();
    assertThat(runId).as("the task names its run").isNotEmpty();
    assertThat(store.search(dev.rcrt.core.Selector.schema("agent.response.v1").withAllTags("run:" + runId), 10, 0))
        .as("no answer recorded after the cancel").noneSatisfy(r -> assertThat(r.context().toString()).contains("You said"));
  }

  /**
   * Server a takes a task and is SIGKILLed at a moment drawn at random from four (at once, during
   * the model's call, as the model's answer reaches it, after it answered the task); server b,
   * started after while a's claim (lease 8 s) still holds, finds the unanswered message, waits out
   * the lease and completes the task, with exactly one answer. A kill during the first model call
   * leaves a run with no record: it is found by its message, not by its id (this failed before the
   * watcher kept the message). The moments are events (the model's, the store's), not sleeps.
   */
  @Test
  void aTaskOutlivesTheServerThatTookItKilledAtARandomMoment() throws Exception {
    List<Integer> moments = new ArrayList<>(List.of(0, 1, 2, 3));
    java.util.Collections.shuffle(moments);
    for (int round = 0; round < 3; round++) {
      Slow held = new Slow();
      slow = held;
      Process[] a = new Process[1];
      String base = serve("a" + round, a, 8000);
      JsonNode started = js(card(base), "start", "a slow question " + round).get(0);
      String taskId = started.path("id").asText();
      int moment = moments.get(round);
      if (moment >= 1) {
        assertThat(held.asked.tryAcquire(60, TimeUnit.SECONDS)).as("server a asks the model").isTrue();
      }
      if (moment >= 2) {
        held.gate.countDown();
        assertThat(held.answered.tryAcquire(60, TimeUnit.SECONDS)).as("the model answered server a").isTrue();
      }
      if (moment == 3) {
        awaitCompleted(base, taskId);
      }
      a[0].destroyForcibly().waitFor(); // SIGKILL
      System.out.printf("round %d: server a killed at moment %d (0 at once, 1 in the model's call, 2 as its answer came, 3 after)%n",
          round, moment);
      held.gate.countDown();
      Process[] b = new Process[1];
      String other = serve("b" + round, b, 1500);

      JsonNode task = awaitCompleted(other, taskId);
      assertThat(task.path("status").path("state").asText()).as("round %d, killed at moment %d: %s", round, moment, task).isEqualTo("completed");
      assertThat(artifactText(task)).isEqualTo("You said: a slow question " + round);
      String runId = task.path("metadata").path("rcrt_run_id").asText();
      assertThat(store.search(dev.rcrt.core.Selector.schema("agent.response.v1").withAllTags("run:" + runId), 10, 0))
          .as("one answer for run %s", runId).hasSize(1);
      b[0].destroyForcibly().waitFor();
    }
  }

  /**
   * The task as {@code base} gives it once it is completed, asked again after each record written
   * to the store (its events), never by sleeping; as it stands after 60 s if it never completes.
   */
  private JsonNode awaitCompleted(String base, String taskId) throws Exception {
    JsonNode[] task = new JsonNode[1];
    dev.rcrt.testing.StoreWaits.until(store, () -> {
      try {
        task[0] = js(card(base), "get", taskId).get(0);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
      return task[0].path("status").path("state").asText().equals("completed");
    }, java.time.Duration.ofSeconds(60));
    return task[0];
  }

  /** One "slow" question's model call: {@code asked} when it arrives, held until {@code gate} opens, {@code answered} after. */
  private static final class Slow {
    final java.util.concurrent.Semaphore asked = new java.util.concurrent.Semaphore(0);
    final java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(1);
    final java.util.concurrent.Semaphore answered = new java.util.concurrent.Semaphore(0);
  }

  @Test
  void aTaskWaitingForApprovalIsInputRequiredAndCompletesAfterTheCallersApproval() throws Exception {
    store.create(BreadcrumbCreate.builder("tool.v1", "pay").context(RcrtJson.parse("""
        {"name":"pay","description":"Pays the invoice; a person approves.","requires_approval":true,
         "input_schema":{"type":"object"},"implementation":{"type":"http","endpoint":"http://127.0.0.1:%d/pay"}}"""
        .formatted(http.getAddress().getPort()))).build());
    String a = serve("a");
    String b = serve("b");

    JsonNode waiting = js(card(a), "ask", "please pay the invoice").get(0);
    assertThat(waiting.path("status").path("state").asText()).isEqualTo("input-required");
    assertThat(waiting.path("status").path("message").path("parts").path(0).path("text").asText()).contains("tool 'pay'").contains("approve");
    assertThat(paid).hasValue(0);
    assertThat(js(card(b), "get", waiting.path("id").asText()).get(0).path("status").path("state").asText()).isEqualTo("input-required");

    JsonNode done = js(card(a), "reply", waiting.path("id").asText(), waiting.path("contextId").asText(), "approve").get(0);
    assertThat(done.path("status").path("state").asText()).isEqualTo("completed");
    assertThat(artifactText(done)).contains("\"paid\":1");
    assertThat(paid).hasValue(1);
  }

  @Test
  void anAgentOfOursAnswersThroughAToolImportedFromAJavaScriptAgent() throws Exception {
    Path node = NodeTools.a2aNode();
    Path log = dir.resolve("peer.log");
    Process peer = new ProcessBuilder(node.toString(), script("peer-agent.mjs").toString(), "0")
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    processes.add(peer);
    LogWaits.until(log, "peer agent listening on", peer, Duration.ofSeconds(60));
    Matcher m = LISTENING.matcher(Files.readString(log));
    assertThat(m.find()).isTrue();
    String base = m.group(1);

    CliHarness imported = CliHarness.run("a2a", "import", base, "--alias", "parcels");
    assertThat(imported.status).as(imported.err()).isZero();
    Path records = dir.resolve("parcels.json");
    Files.writeString(records, imported.out());
    JsonNode tool = RcrtJson.parse(imported.out()).get(0);
    assertThat(tool.path("context").path("name").asText()).isEqualTo("parcels.shipping-quote");
    assertThat(tool.path("context").path("implementation").path("type").asText()).isEqualTo("a2a");

    Path trail = dir.resolve("trail.jsonl");
    CliHarness chat = CliHarness.run(Map.of(), "", "chat", "--breadcrumbs", records.toString(), "--base-url", modelUrl(), "--model", "scripted",
        "--allow-network", "127.0.0.0/8", "--dump", trail.toString(), "What does shipping to Oslo cost?");
    assertThat(chat.status).as(chat.err()).isZero();
    assertThat(chat.out()).contains("Shipping a parcel to Oslo costs 63 NOK.");
    assertThat(Files.readString(trail)).contains("\"tool\":\"parcels.shipping-quote\"");

    // a remote agent that never finishes: the tool's deadline ends the call and cancels the remote task
    ObjectNode stalling = (ObjectNode) RcrtJson.parse(imported.out()).get(0).deepCopy();
    ((ObjectNode) stalling.get("context")).putObject("limits").put("timeout_ms", 3000);
    Path slow = dir.resolve("slow.json");
    Files.writeString(slow, RcrtJson.write(RcrtJson.array().add(stalling)));
    CliHarness stalled = CliHarness.run("tool", "call", "parcels.shipping-quote", "{\"message\":\"please stall\"}", "--breadcrumbs", slow.toString(),
        "--allow-network", "127.0.0.0/8");
    assertThat(stalled.status).isEqualTo(1);
    assertThat(stalled.err()).contains("[tool_timeout]").contains("it was cancelled there");
  }
}
