package dev.rcrt.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.postgres.TestPostgres;
import dev.rcrt.testing.LogWaits;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./rcrt console} as a user runs it: two processes on one PostgreSQL store. A run streamed by
 * one is resumed from the other with {@code Last-Event-ID}: the same events, the same ids; SIGTERM
 * ends each with status 0. The official AG-UI client, whose server is SIGKILLed during the run's
 * model call, goes on at the other process, which takes the run over: one run, every event once.
 */
class ConsoleCommandTest {
  private static final Pattern LISTENING = Pattern.compile("console at (http://127\\.0\\.0\\.1:\\d+)/");

  @TempDir Path dir;

  private final List<Process> processes = new ArrayList<>();
  private final HttpClient http = HttpClient.newHttpClient();

  @AfterEach
  void tearDown() {
    processes.forEach(Process::destroyForcibly);
  }

  private String console(String storeUrl, String name, String... more) throws Exception {
    Path log = dir.resolve(name + ".log");
    List<String> args = new ArrayList<>(List.of("dev.rcrt.cli.Main", "console", "--store", storeUrl, "--http", "127.0.0.1:0",
        "--approver", "alice"));
    args.addAll(List.of(more));
    Process p = TestJvm.start(List.of(), args, log);
    processes.add(p);
    LogWaits.until(log, "console at", p, Duration.ofSeconds(120));
    Matcher m = LISTENING.matcher(Files.readString(log));
    assertThat(m.find()).isTrue();
    return m.group(1);
  }

  /** The SSE stream's events as {@code id} and {@code data} pairs, one string each. */
  private List<String> post(String base, String body, String lastEventId) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + "/agui/default-chat-assistant"))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
    if (lastEventId != null) {
      b.header("Last-Event-ID", lastEventId);
    }
    HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    List<String> events = new ArrayList<>();
    for (String block : r.body().split("\n\n")) {
      if (!block.isBlank()) {
        events.add(block.strip());
      }
    }
    return events;
  }

  /**
   * A scripted OpenAI-compatible model: its first answer waits until the test lets it go (its
   * process is killed meanwhile), later ones answer at once.
   */
  private HttpServer model(java.util.concurrent.CountDownLatch asked, java.util.concurrent.CountDownLatch release) throws Exception {
    java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
    HttpServer server = HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    server.createContext("/v1/chat/completions", exchange -> {
      exchange.getRequestBody().readAllBytes();
      if (calls.incrementAndGet() == 1) {
        asked.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      ObjectNode body = RcrtJson.object().put("id", "c").put("object", "chat.completion").put("model", "scripted");
      body.putArray("choices").addObject().put("index", 0).put("finish_reason", "stop")
          .putObject("message").put("role", "assistant").put("content", "answered after the takeover");
      byte[] bytes = RcrtJson.write(body).getBytes(java.nio.charset.StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      try {
        exchange.sendResponseHeaders(200, bytes.length);
        exchange.getResponseBody().write(bytes);
      } catch (java.io.IOException gone) {
        // the process that asked was killed
      }
      exchange.close();
    });
    server.start();
    return server;
  }

  @Test
  void theOfficialClientGoesOnAtAnotherProcessWhenItsServerIsKilledMidRun() throws Exception {
    java.util.concurrent.CountDownLatch asked = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    HttpServer model = model(asked, release);
    try {
      String storeUrl = TestPostgres.storeUrl(TestPostgres.freshSchema());
      String[] options = {"--base-url", "http://127.0.0.1:" + model.getAddress().getPort() + "/v1", "--model", "scripted", "--lease", "1000"};
      String one = console(storeUrl, "one", options);
      String two = console(storeUrl, "two", options);
      Process first = processes.get(0);
      // the official AG-UI client runs the agent at the first process, with the second as its fallback
      Path node = NodeTools.aguiNode();
      for (String script : List.of("failover.mjs")) {
        try (var in = ConsoleCommandTest.class.getResourceAsStream("/agui/" + script)) {
          Files.copy(java.util.Objects.requireNonNull(in), NodeTools.AGUI_DIR.resolve(script), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
      }
      // the resumable fetch the AG-UI reference gives front-ends, as rcrt-agui's tests run it
      Files.copy(Path.of("../rcrt-agui/src/test/resources/agui/resumable-fetch.mjs"), NodeTools.AGUI_DIR.resolve("resumable-fetch.mjs"),
          java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      Process client = new ProcessBuilder(node.toString(), NodeTools.AGUI_DIR.resolve("failover.mjs").toString(),
          one + "/agui/default-chat-assistant", two + "/agui/default-chat-assistant")
          .directory(NodeTools.AGUI_DIR.toFile()).redirectErrorStream(true).redirectOutput(dir.resolve("client.out").toFile()).start();
      processes.add(client);
      assertThat(asked.await(120, TimeUnit.SECONDS)).isTrue();
      first.destroyForcibly(); // SIGKILL, while the run's model call is under way and the client is connected
      first.waitFor(60, TimeUnit.SECONDS);

      assertThat(client.waitFor(180, TimeUnit.SECONDS)).isTrue();
      String out = Files.readString(dir.resolve("client.out"));
      assertThat(client.exitValue()).as(out).isZero();
      com.fasterxml.jackson.databind.JsonNode seen = RcrtJson.parse(out.lines().reduce((a, b) -> b).orElse("{}"));
      assertThat(seen.path("failed").isNull()).as(out).isTrue();
      assertThat(seen.path("reconnects").asInt()).as(out).isGreaterThanOrEqualTo(1);
      List<String> types = new ArrayList<>();
      seen.path("types").forEach(t -> types.add(t.asText()));
      // one run, every event once: the client's own verification refuses a repeated start or message
      assertThat(types).containsExactly("RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED");
      assertThat(seen.path("finished").path("outcome").path("type").asText()).isEqualTo("success");
      assertThat(seen.path("answer").asText()).isEqualTo("answered after the takeover");
    } finally {
      release.countDown();
      model.stop(0);
    }
  }

  @Test
  void aRunStreamedByOneConsoleIsResumedFromAnotherAndBothStopOnSigterm() throws Exception {
    String storeUrl = TestPostgres.storeUrl(TestPostgres.freshSchema());
    String one = console(storeUrl, "one");
    String two = console(storeUrl, "two");
    String input = """
        {"threadId":"cli","runId":"r1","messages":[{"id":"m1","role":"user","content":"what is 2+2?"}]}""";
    List<String> all = post(one, input, null);
    assertThat(all.get(0)).contains("RUN_STARTED");
    assertThat(all.get(all.size() - 1)).contains("RUN_FINISHED").contains("\"success\"");
    assertThat(String.join("\n", all)).contains("TOOL_CALL_RESULT").contains("TEXT_MESSAGE_CONTENT");
    // the other console tells the same run from its records (text that streamed live in one, whole here), and a client that
    // resumes at one with an id the other gave gets exactly the rest
    List<String> told = post(two, input, null);
    assertThat(types(told)).isEqualTo(types(all));
    String firstId = told.get(1).lines().filter(l -> l.startsWith("id: ")).findFirst().orElseThrow().substring(4);
    assertThat(post(one, input, firstId)).isEqualTo(told.subList(2, told.size()));

    HttpResponse<String> runs = http.send(HttpRequest.newBuilder(URI.create(two + "/api/runs")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(RcrtJson.parse(runs.body())).singleElement().satisfies(r -> assertThat(r.path("session").asText()).isEqualTo("agui:cli"));
    assertThat(http.send(HttpRequest.newBuilder(URI.create(one + "/")).build(), HttpResponse.BodyHandlers.ofString()).body())
        .contains("RCRT console");

    for (Process p : processes) {
      new ProcessBuilder("kill", "-TERM", Long.toString(p.pid())).start().waitFor();
    }
    for (Process p : processes) {
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).isZero();
    }
  }

  /** The AG-UI event types of SSE events, in order. */
  private static List<String> types(List<String> events) {
    return events.stream().map(e -> RcrtJson.parse(e.substring(e.indexOf("data: ") + 6).lines().findFirst().orElse("{}")).path("type").asText())
        .toList();
  }
}
