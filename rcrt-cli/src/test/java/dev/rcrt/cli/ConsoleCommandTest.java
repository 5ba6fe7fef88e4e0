package dev.rcrt.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.RcrtJson;
import dev.rcrt.postgres.TestPostgres;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./rcrt console} as a user runs it: two processes on one PostgreSQL store, the offline
 * model. A run streamed by one is resumed from the other with {@code Last-Event-ID}: the same events,
 * the same ids. SIGTERM ends each with status 0.
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

  private String console(String storeUrl, String name) throws Exception {
    Path log = dir.resolve(name + ".log");
    Process p = TestJvm.start(List.of(), List.of("dev.rcrt.cli.Main", "console", "--store", storeUrl, "--http", "127.0.0.1:0",
        "--approver", "alice"), log);
    processes.add(p);
    TestJvm.await(log, "console at", p, 120);
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
    String firstId = all.get(1).lines().filter(l -> l.startsWith("id: ")).findFirst().orElseThrow().substring(4);
    assertThat(post(two, input, firstId)).isEqualTo(all.subList(2, all.size()));

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
}
