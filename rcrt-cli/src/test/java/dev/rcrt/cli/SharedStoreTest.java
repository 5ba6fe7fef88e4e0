package dev.rcrt.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.postgres.PostgresBreadcrumbStore;
import dev.rcrt.postgres.TestPostgres;
import dev.rcrt.testing.LogWaits;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.ToolResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line on a shared PostgreSQL store: sessions across invocations, and a fleet of runner
 * processes answering an agent process.
 */
class SharedStoreTest {
  @TempDir Path logs;

  @Test
  void aSecondInvocationOnTheSameStoreSeesTheFirstSession() {
    String url = TestPostgres.storeUrl(TestPostgres.freshSchema());

    CliHarness chat = CliHarness.run("chat", "--store", url, "--session", "s1", "What is 17 * 23?");
    CliHarness search = CliHarness.run(Map.of("RCRT_STORE", url), "", "search", "--selector", "{\"all_tags\":[\"session:s1\"]}");

    assertThat(chat.status).as(chat.err()).isZero();
    assertThat(chat.out()).contains("391");
    assertThat(search.status).as(search.err()).isZero();
    List<String> schemas = search.out().lines().map(l -> RcrtJson.parse(l).get("schema_name").asText()).toList();
    assertThat(schemas).contains("user.message.v1", "tool.request.v1", "tool.response.v1", "agent.response.v1");
  }

  @Test
  void chatInEventModeIsAnsweredByRunnerProcessesAndTheTrailNamesTheRunner() throws Exception {
    String url = TestPostgres.storeUrl(TestPostgres.freshSchema());
    List<Process> runners = new ArrayList<>();
    try {
      for (int i = 0; i < 2; i++) {
        runners.add(startRunner(url, i));
      }
      Path dump = logs.resolve("trail.jsonl");
      CliHarness chat = CliHarness.run("chat", "--store", url, "--tool-mode", "event", "--dump", dump.toString(), "What is 17 * 23?");

      assertThat(chat.status).as(chat.err()).isZero();
      assertThat(chat.out()).contains("391");
      List<com.fasterxml.jackson.databind.JsonNode> responses = Files.readAllLines(dump).stream().map(RcrtJson::parse)
          .filter(b -> b.path("schema_name").asText().equals(ToolResponse.SCHEMA)).toList();
      assertThat(responses).singleElement().satisfies(r -> {
        assertThat(r.path("context").path("status").asText()).isEqualTo("success");
        assertThat(r.path("tags").toString()).contains("runner:");
      });
    } finally {
      runners.forEach(Process::destroyForcibly);
    }
  }

  @Test
  void aMalformedStoreUrlIsAUsageErrorWithoutThePassword() {
    CliHarness run = CliHarness.run("search", "--store", "mysql://u:hunter22@h/db", "--selector", "{}");
    assertThat(run.status).isEqualTo(2);
    assertThat(run.err()).contains("the scheme must be postgresql://").doesNotContain("hunter22");
  }

  @Test
  void threeRunnerProcessesAnswerThreeHundredRequestsFromAnAgentProcessExactlyOnceThoughOneIsKilled() throws Exception {
    String schema = TestPostgres.freshSchema();
    String url = TestPostgres.storeUrl(schema);
    List<Process> runners = new ArrayList<>();
    Process agent = null;
    try (PostgresBreadcrumbStore store = PostgresBreadcrumbStore.builder(TestPostgres.dataSource()).schema(schema).build()) {
      BuiltinTools.seed(store);
      for (int i = 0; i < 3; i++) {
        runners.add(startRunner(url, i));
      }
      Path agentLog = logs.resolve("agent.log");
      agent = TestJvm.start(List.of(), List.of("dev.rcrt.cli.FleetAgentMain", TestPostgres.jdbcUrl(), schema, "300"), agentLog);
      LogWaits.until(agentLog, "written 150", agent, Duration.ofSeconds(90));
      runners.get(0).destroyForcibly(); // SIGKILL halfway: no clean-up, its claims just run out
      assertThat(agent.waitFor(180, TimeUnit.SECONDS)).as("agent finished").isTrue();
      assertThat(agent.exitValue()).as(Files.readString(agentLog)).isZero();
      assertThat(Files.readString(agentLog)).contains("answered 300");

      List<Breadcrumb> responses = store.search(Selector.schema(ToolResponse.SCHEMA), 1000, 0);
      Map<String, Long> perRequest = responses.stream().collect(Collectors.groupingBy(
          b -> b.tags().stream().filter(t -> t.startsWith("request:")).findFirst().orElseThrow(), Collectors.counting()));
      assertThat(perRequest).hasSize(300);
      assertThat(perRequest.values()).containsOnly(1L);
      assertThat(responses).allSatisfy(r -> assertThat(r.tags()).anyMatch(t -> t.startsWith("runner:")));
      List<Breadcrumb> runs = store.search(Selector.schema("run.v1"), 1000, 0);
      assertThat(runs.stream().map(r -> r.context().get("i").asInt()).distinct().count()).isEqualTo(300);
      assertThat(runs).as("each request ran once, but for the few the killed runner had in flight (concurrency 4)")
          .hasSizeBetween(300, 304);

      for (Process survivor : runners.subList(1, 3)) {
        survivor.destroy(); // SIGTERM: finish, release, exit 0
        assertThat(survivor.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(survivor.exitValue()).as(Files.readString(logs.resolve("runner-" + runners.indexOf(survivor) + ".log"))).isZero();
      }
    } finally {
      runners.forEach(Process::destroyForcibly);
      if (agent != null) {
        agent.destroyForcibly();
      }
    }
  }

  /** A {@code ./rcrt runner} in its own JVM, started and listening. */
  private Process startRunner(String url, int n) throws Exception {
    Path log = logs.resolve("runner-" + n + ".log");
    Process p = TestJvm.start(List.of(), List.of("dev.rcrt.cli.Main", "runner", "--store", url, "--concurrency", "4", "--lease", "1000"), log);
    LogWaits.until(log, "runner listening on", p, Duration.ofSeconds(90));
    return p;
  }
}
