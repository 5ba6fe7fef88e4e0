package dev.rcrt.tools.js;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.testing.ToolHarness;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The worker processes belong to their runtime: counted, bounded in time while queued, stopped on close. */
class JavaScriptWorkersTest {

  private static void code(ToolHarness h, String name, long timeoutMs, String source) {
    h.define("tool.code.v1", """
        {"name":"%s","code":{"language":"javascript","source":%s},"input_schema":{"type":"object"},"limits":{"timeout_ms":%d}}
        """.formatted(name, RcrtJson.write(RcrtJson.nodes().textNode(source)), timeoutMs));
  }

  /** A harness whose JavaScript runtime has a single worker. */
  private static ToolHarness withOneWorker() {
    System.setProperty("rcrt.js.workers", "1");
    try {
      return new ToolHarness();
    } finally {
      System.clearProperty("rcrt.js.workers");
    }
  }

  /** Defines {@code hog}: it says that it runs (a {@code hog.started.v1} record), then holds its worker for its whole limit. */
  private static void hog(ToolHarness h, long timeoutMs) {
    code(h, "hog", timeoutMs, """
        export async function execute(input, context) {
          await context.api.createBreadcrumb({schema_name: 'hog.started.v1', title: 'running'});
          while (true) {}
        }""");
  }

  /** Calls {@code hog} and returns once it runs: its call, which ends {@code tool_timeout} at its limit. */
  private static CompletableFuture<ToolResponse> hogRunning(ToolHarness h) throws Exception {
    CompletableFuture<Void> runs = new CompletableFuture<>();
    try (Subscription s = h.store.subscribe(Selector.schema("hog.started.v1"), e -> runs.complete(null))) {
      CompletableFuture<ToolResponse> hog = CompletableFuture.supplyAsync(() -> h.call("hog", "{}"));
      runs.get(60, TimeUnit.SECONDS);
      return hog;
    }
  }

  /** The worker JVMs this JVM started and that still run. */
  private static List<ProcessHandle> workers() {
    return ProcessHandle.current().children()
        .filter(p -> p.isAlive() && p.info().command().orElse("").endsWith("java"))
        .toList();
  }

  @Test
  void twoToolsOfTheSameSourceAreTwoProgramsInAWorkerEachWithItsOwnHandlerLimitsAndName() {
    try (ToolHarness h = withOneWorker()) { // one worker: both tools' programs meet in it
      String source = "export function first() { return {said: 'first'}; } export function second() { return {said: 'second'}; }"
          + " export function spin() { while (true) {} }";
      for (String[] tool : new String[][] {{"one", "first", "20000"}, {"two", "second", "20000"}, {"spin-a", "spin", "1000"}, {"spin-b", "spin", "1500"}}) {
        h.define("tool.code.v1", """
            {"name":"%s","code":{"language":"javascript","handler":"%s","source":%s},"input_schema":{"type":"object"},"limits":{"timeout_ms":%s}}
            """.formatted(tool[0], tool[1], RcrtJson.write(RcrtJson.nodes().textNode(source)), tool[2]));
      }
      for (int round = 0; round < 2; round++) { // the second round calls each after the other was loaded
        ToolResponse one = h.call("one", "{}");
        assertThat(one.success()).as("%s", one.error()).isTrue();
        assertThat(one.output().path("said").asText()).as("the first tool's own handler").isEqualTo("first");
        assertThat(h.call("two", "{}").output().path("said").asText()).as("the second tool's own handler").isEqualTo("second");
      }
      assertThat(h.call("spin-a", "{}").error()).isEqualTo("tool 'spin-a' timed out after 1000 ms");
      assertThat(h.call("spin-b", "{}").error()).isEqualTo("tool 'spin-b' timed out after 1500 ms");
      assertThat(h.call("spin-a", "{}").error()).as("its own name and limit, after the other's load").isEqualTo("tool 'spin-a' timed out after 1000 ms");
    }
  }

  @Test
  void closingTheRunnerStopsItsRuntimesWorkers() throws Exception {
    List<ProcessHandle> before = workers();
    ToolHarness h = new ToolHarness();
    code(h, "hello", 20_000, "export function execute() { return {ok: true}; }");
    assertThat(h.call("hello", "{}").output().path("ok").asBoolean()).isTrue();
    List<ProcessHandle> mine = workers().stream().filter(p -> !before.contains(p)).toList();
    assertThat(mine).isNotEmpty();
    h.close();
    for (ProcessHandle worker : mine) {
      worker.onExit().get(20, TimeUnit.SECONDS);
    }
    assertThat(workers()).doesNotContainAnyElementsOf(mine);
    assertThat(h.call("hello", "{}").errorCode()).isNotEqualTo("success");
  }

  @Test
  void timeQueuedBehindABusyWorkerCountsAgainstTheCallsLimit() throws Exception {
    ToolHarness h = withOneWorker();
    try (h) {
      hog(h, 2_000); // holds the only worker for its whole 2 s limit
      // needs 1.5 s of its 3 s limit: it fits only if the 2 s it waited for the worker is not counted
      code(h, "patient", 3_000, """
          export async function execute() { await new Promise(done => setTimeout(done, 1500)); return {ok: true}; }""");
      ToolResponse warm = h.call("patient", "{}");
      assertThat(warm.success()).as("warm: one worker up, the code known: %s", warm.error()).isTrue();
      CompletableFuture<ToolResponse> hog = hogRunning(h);
      ToolResponse patient = h.call("patient", "{}");
      assertThat(hog.get(30, TimeUnit.SECONDS).errorCode()).isEqualTo("tool_timeout");
      assertThat(patient.errorCode()).isEqualTo("tool_timeout");
      assertThat(patient.error()).contains("3000 ms");
    }
  }

  @Test
  void aToolFirstCalledWhileEveryWorkerIsBusyWaitsNoLongerThanItsLimitAndLoadsLater() throws Exception {
    ToolHarness h = withOneWorker();
    try (h) {
      hog(h, 5_000);
      code(h, "fresh", 1_500, "export function execute() { return {ok: true}; }");
      CompletableFuture<ToolResponse> hog = hogRunning(h);
      // before: loading fresh's code waited for the busy worker (up to a minute), outside the call's 1.5 s
      ToolResponse fresh = h.call("fresh", "{}");
      assertThat(fresh.errorCode()).as("%s", fresh.error()).isEqualTo("tool_timeout");
      assertThat(fresh.error()).contains("stayed busy");
      assertThat(hog.get(60, TimeUnit.SECONDS).errorCode()).isEqualTo("tool_timeout");
      ToolResponse later = h.call("fresh", "{}");
      for (int i = 0; i < 20 && !later.success() && "tool_timeout".equals(later.errorCode()); i++) { // the hog's worker is replaced
        later = h.call("fresh", "{}");
      }
      assertThat(later.success()).as("its first call evaluates the module it skipped at load: %s", later.error()).isTrue();
    }
  }

  @Test
  void waitingForAWorkerToStartCountsAgainstTheCallsLimitAndTheWorkerServesTheNextCall() throws Exception {
    ToolHarness h = withOneWorker();
    ProcessHandle starting = null;
    try (h) {
      code(h, "quick", 1_500, "export function execute() { return {ok: true}; }");
      code(h, "patient", 120_000, "export function execute() { return {ok: true}; }");
      assertThat(h.call("quick", "{}").success()).isTrue();
      assertThat(h.call("patient", "{}").success()).isTrue();
      List<ProcessHandle> up = workers();
      assertThat(up).hasSize(1);
      // the only worker dies: the next call must wait for a new one to start, which is kept from
      // finishing (stopped as soon as it appears, long before its engine is up)
      up.get(0).destroyForcibly();
      up.get(0).onExit().get(30, TimeUnit.SECONDS);
      CompletableFuture<ToolResponse> quick = CompletableFuture.supplyAsync(() -> h.call("quick", "{}"));
      // spun, not waited on: the new process must be caught before its engine is up, and its start is no event this test
      // can subscribe to; bounded, so that a worker that never starts fails the test instead of hanging it
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (starting == null) {
        assertThat(System.nanoTime()).as("a new worker process starts").isLessThan(deadline);
        starting = workers().stream().filter(p -> !up.contains(p)).findFirst().orElse(null);
        Thread.onSpinWait();
      }
      assertThat(signal("STOP", starting)).isZero();

      // before: the call waited up to a minute for the start, whatever its 1.5 s limit
      ToolResponse late = quick.get(30, TimeUnit.SECONDS);
      assertThat(late.errorCode()).as("%s", late.error()).isEqualTo("tool_timeout");
      assertThat(late.error()).contains("to start");

      assertThat(signal("CONT", starting)).isZero();
      ToolResponse next = h.call("patient", "{}");
      assertThat(next.success()).as("%s", next.error()).isTrue();
      assertThat(workers()).as("the worker that went on starting served the next call").containsExactly(starting);
    } finally {
      if (starting != null) {
        // best effort: closing the harness above may already have ended the worker (then there is nothing to continue)
        signal("CONT", starting);
      }
    }
  }

  /** Sends signal {@code name} to {@code process} with {@code kill}; its exit status (0: sent). */
  private static int signal(String name, ProcessHandle process) throws Exception {
    return new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start().waitFor();
  }
}
