package dev.rcrt.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.postgres.PostgresBreadcrumbStore;
import dev.rcrt.postgres.TestPostgres;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.ToolCallOptions;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line on a shared PostgreSQL store: sessions across invocations, and a fleet of runner
 * processes (this test's JVM is the agent that writes the requests).
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
  void aMalformedStoreUrlIsAUsageErrorWithoutThePassword() {
    CliHarness run = CliHarness.run("search", "--store", "mysql://u:hunter22@h/db", "--selector", "{}");
    assertThat(run.status).isEqualTo(2);
    assertThat(run.err()).contains("the scheme must be postgresql://").doesNotContain("hunter22");
  }

  @Test
  void threeRunnerProcessesAnswerThreeHundredRequestsExactlyOnceThoughOneIsKilled() throws Exception {
    String schema = TestPostgres.freshSchema();
    String url = TestPostgres.storeUrl(schema);
    List<Process> runners = new ArrayList<>();
    try (PostgresBreadcrumbStore store = PostgresBreadcrumbStore.builder(TestPostgres.dataSource()).schema(schema).build()) {
      BuiltinTools.seed(store);
      for (int i = 0; i < 3; i++) {
        runners.add(startRunner(url, i));
      }
      List<CompletableFuture<ToolResponse>> answers = new ArrayList<>();
      try (ToolRunner agent = ToolRunner.builder(store).build()) {
        for (int i = 0; i < 300; i++) {
          // each run of breadcrumb-create leaves a record: the count of runs across every process
          var input = RcrtJson.object().put("schema_name", "run.v1").put("title", "run " + i);
          input.putObject("context").put("i", i);
          answers.add(agent.dispatch(ToolRequest.of("breadcrumb-create", input, "agent"), ToolCallOptions.host()));
          if (i == 150) {
            runners.get(0).destroyForcibly(); // SIGKILL: no clean-up, its claims just run out
          }
        }
        for (CompletableFuture<ToolResponse> a : answers) {
          assertThat(a.get(120, TimeUnit.SECONDS).success()).isTrue();
        }
      }
      List<Breadcrumb> responses = store.search(Selector.schema(ToolResponse.SCHEMA), 1000, 0);
      Map<String, Long> perRequest = responses.stream().collect(Collectors.groupingBy(
          b -> b.tags().stream().filter(t -> t.startsWith("request:")).findFirst().orElseThrow(), Collectors.counting()));
      assertThat(perRequest).hasSize(300);
      assertThat(perRequest.values()).containsOnly(1L);
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
    }
  }

  /** A {@code ./rcrt runner} in its own JVM, started and listening. */
  private Process startRunner(String url, int n) throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    Path log = logs.resolve("runner-" + n + ".log");
    Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), "dev.rcrt.cli.Main",
        "runner", "--store", url, "--concurrency", "4", "--lease", "1000")
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      if (Files.readString(log).contains("runner listening on")) {
        return p;
      }
      if (!p.isAlive()) {
        throw new AssertionError("runner " + n + " exited: " + Files.readString(log));
      }
      Thread.sleep(50);
    }
    throw new AssertionError("runner " + n + " did not start: " + Files.readString(log));
  }
}
