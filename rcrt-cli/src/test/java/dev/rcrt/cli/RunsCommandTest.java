package dev.rcrt.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.postgres.TestPostgres;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code chat --wait}, {@code chat --no-wait} and {@code runs} on a shared PostgreSQL store, answered by {@code runner --agents}. */
class RunsCommandTest {
  @TempDir Path logs;

  @Test
  void inEventModeWithNoRunnerChatSaysWhatItWaitsForAndGivesUpAfterWait() {
    String url = TestPostgres.storeUrl(TestPostgres.freshSchema());
    CliHarness chat = CliHarness.run("chat", "--store", url, "--tool-mode", "event", "--wait", "3s", "What is 17 * 23?");
    assertThat(chat.status).as(chat.err()).isEqualTo(1);
    assertThat(chat.err()).contains("waiting for a runner to answer 'calculator'")
        .contains("stopped waiting after 3 s").contains("./rcrt runs show");
    // the hint works when pasted: the store URL keeps its user, port, database and schema, and hides only a password
    java.util.regex.Matcher hint = java.util.regex.Pattern.compile("\\./rcrt (runs show \\S+ --store \\S+)\\)").matcher(chat.err());
    assertThat(hint.find()).as(chat.err()).isTrue();
    String shown = hint.group(1);
    assertThat(shown).contains("?schema=").doesNotContain(":***@").isEqualTo(shown.replace(url.replaceAll(":[^:@/]*@", "@"), url));
    CliHarness pasted = CliHarness.run(shown.split(" "));
    assertThat(pasted.status).as(pasted.err()).isZero();
    assertThat(pasted.out()).contains("waiting_for_tools");
    assertThat(chat.out()).isEmpty();

    CliHarness listed = CliHarness.run("runs", "list", "--store", url);
    assertThat(listed.status).as(listed.err()).isZero();
    assertThat(listed.out()).contains("waiting_for_tools").contains("calculator");
  }

  @Test
  void aMessageWrittenWithNoWaitIsAnsweredByARunnerServingTheAgents() throws Exception {
    String url = TestPostgres.storeUrl(TestPostgres.freshSchema());
    CliHarness submitted = CliHarness.run("chat", "--store", url, "--no-wait", "What is 17 * 23?");
    assertThat(submitted.status).as(submitted.err()).isZero();
    String runId = submitted.out().strip();
    assertThat(runId).matches("[0-9a-f-]{36}");

    Process runner = runner(url);
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      CliHarness shown;
      do {
        Thread.sleep(200);
        shown = CliHarness.run("runs", "show", runId, "--store", url);
      } while (!shown.out().contains("status   done") && System.nanoTime() < deadline);
      assertThat(shown.out()).contains("status   done").contains("391").contains("tool.request.v1").contains("agent.response.v1");
    } finally {
      runner.destroyForcibly();
    }
    CliHarness unknown = CliHarness.run("runs", "show", "no-such-run", "--store", url);
    assertThat(unknown.status).isEqualTo(1);
    assertThat(unknown.err()).contains("no run 'no-such-run'");
  }

  @Test
  void commandsThatOnlyReadWriteNothingIntoASharedStore() {
    String url = TestPostgres.storeUrl(TestPostgres.freshSchema());
    for (String[] reading : List.of(new String[] {"runs", "list"}, new String[] {"tools", "list"}, new String[] {"search", "--selector", "{}"})) {
      String[] args = java.util.stream.Stream.concat(java.util.Arrays.stream(reading), java.util.stream.Stream.of("--store", url)).toArray(String[]::new);
      CliHarness run = CliHarness.run(args);
      assertThat(run.status).as(String.join(" ", reading) + ": " + run.err()).isZero();
    }
    CliHarness all = CliHarness.run("search", "--selector", "{}", "--store", url);
    assertThat(all.out()).as("no bundled tool or agent was written by a command that only reads").isEmpty();
  }

  @Test
  void noWaitNeedsAStoreOtherProcessesShare() {
    CliHarness chat = CliHarness.run("chat", "--no-wait", "hello");
    assertThat(chat.status).isEqualTo(2);
    assertThat(chat.err()).contains("--no-wait needs a store other processes share");
  }

  private Process runner(String url) throws Exception {
    Path log = logs.resolve("runner.log");
    Process p = TestJvm.start(List.of(), List.of("dev.rcrt.cli.Main", "runner", "--store", url, "--agents", "--lease", "1000"), log);
    TestJvm.await(log, "runner listening on", p, 60);
    return p;
  }
}
