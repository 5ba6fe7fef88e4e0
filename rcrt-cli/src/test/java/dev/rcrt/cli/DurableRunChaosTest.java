package dev.rcrt.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.rcrt.agent.Run;
import dev.rcrt.agent.Runs;
import dev.rcrt.agent.UserMessage;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.postgres.PostgresBreadcrumbStore;
import dev.rcrt.postgres.TestPostgres;
import dev.rcrt.testing.LogWaits;
import dev.rcrt.tools.ToolResponse;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Durable runs tried by killing: two agent-runner JVMs ({@code ./rcrt runner --agents --no-tools
 * --tool-mode event}) and two tool-runner JVMs ({@code ./rcrt runner}) on one PostgreSQL store,
 * SIGKILLed at random moments (during model calls, during tools, holding claims) and restarted,
 * with the claims table locked for 3 s midway, while 100 turns run: each one model round with a tool call, then an answer, against a scripted
 * model (an OpenAI-compatible HTTP server here) that counts its requests and checks, on each one,
 * that the round it is asked for is not recorded yet. The tool is an HTTP endpoint here that takes
 * a moment, so kills land inside it.
 */
class DurableRunChaosTest {
  private static final int TURNS = 100;
  private static final Pattern TURN = Pattern.compile("turn-(\\d+)");

  @TempDir Path logs;

  private HttpServer server;
  /** Sends the model's and the tools' answers once their latency has passed. */
  private final java.util.concurrent.ScheduledExecutorService latency = Executors.newScheduledThreadPool(2);
  private String schema;
  private String url;
  private PostgresBreadcrumbStore store;
  private final Map<String, AtomicInteger> modelRequests = new ConcurrentHashMap<>();
  private final List<String> repeatedRecordedRounds = new CopyOnWriteArrayList<>();
  private final Map<Integer, AtomicInteger> toolRuns = new ConcurrentHashMap<>();
  private final AtomicInteger inModel = new AtomicInteger();
  /** A permit for each request that reaches the model or the tool: the kills are timed by these, not by sleeps. */
  private final java.util.concurrent.Semaphore calls = new java.util.concurrent.Semaphore(0);
  private final List<Long> toolStarts = new CopyOnWriteArrayList<>();
  private final java.util.concurrent.Semaphore toolStarted = new java.util.concurrent.Semaphore(0);
  private final AtomicInteger inTool = new AtomicInteger();
  private final List<Process> processes = new ArrayList<>();
  private static final int STALLED_TURN = 777;
  private final java.util.concurrent.CountDownLatch stallEntered = new java.util.concurrent.CountDownLatch(1);
  private final java.util.concurrent.CountDownLatch stallRelease = new java.util.concurrent.CountDownLatch(1);

  @BeforeEach
  void setUp() throws IOException {
    schema = TestPostgres.freshSchema();
    url = TestPostgres.storeUrl(schema);
    store = PostgresBreadcrumbStore.builder(TestPostgres.dataSource()).schema(schema).build();
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(Executors.newCachedThreadPool());
    server.createContext("/v1/chat/completions", this::model);
    server.createContext("/tool", this::tool);
    server.start();
    int port = server.getAddress().getPort();
    store.create(BreadcrumbCreate.builder("tool.v1", "slowtool").context(RcrtJson.parse("""
        {"name":"slowtool","description":"Takes a moment, then says which turn asked.","limits":{"timeout_ms":6000},
         "input_schema":{"type":"object","properties":{"turn":{"type":"integer"}},"required":["turn"]},
         "implementation":{"type":"http","endpoint":"http://127.0.0.1:%d/tool"}}""".formatted(port))).build());
    store.create(BreadcrumbCreate.builder("tool.v1", "paytool").context(RcrtJson.parse("""
        {"name":"paytool","description":"Pays; needs a person's approval.","requires_approval":true,
         "input_schema":{"type":"object","properties":{"turn":{"type":"integer"}},"required":["turn"]},
         "implementation":{"type":"http","endpoint":"http://127.0.0.1:%d/tool"}}""".formatted(port))).build());
  }

  @AfterEach
  void tearDown() {
    stallRelease.countDown();
    processes.stream().filter(Process::isAlive).forEach(p -> signal(p, "CONT"));
    processes.forEach(Process::destroyForcibly);
    server.stop(0);
    latency.shutdownNow();
    store.close();
  }

  /**
   * The scripted model: round 1 calls the turn's tool, round 2 answers. Before answering it checks
   * the store: a request for a round that is already recorded is a repeat (the run was resumed from
   * memory, not from its records).
   */
  private void model(HttpExchange exchange) throws IOException {
    inModel.incrementAndGet();
    calls.release();
    try {
      JsonNode request = RcrtJson.parse(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
      JsonNode messages = request.path("messages");
      int turn = -1;
      int assistants = 0;
      String tool = "slowtool";
      for (JsonNode m : messages) {
        Matcher t = TURN.matcher(m.path("content").asText(""));
        if (m.path("role").asText().equals("user") && t.find()) {
          turn = Integer.parseInt(t.group(1));
          assistants = 0;
          tool = m.path("content").asText().contains("pay") ? "paytool" : "slowtool";
        } else if (m.path("role").asText().equals("assistant")) {
          assistants++;
        }
      }
      int round = assistants + 1;
      int asked = modelRequests.computeIfAbsent(turn + "/" + round, k -> new AtomicInteger()).incrementAndGet();
      if (turn == STALLED_TURN && round == 1 && asked == 1) { // the first holder's model call: the test stops that process now
        stallEntered.countDown();
        stallRelease.await(120, TimeUnit.SECONDS);
      }
      for (Breadcrumb r : store.search(Selector.allTags("agent:round", "session:chaos-" + turn), 10, 0)) {
        if (r.context().path("round").asInt() == round) {
          repeatedRecordedRounds.add("turn " + turn + " round " + round);
        }
      }
      ObjectNode message = RcrtJson.object().put("role", "assistant");
      if (round == 1) {
        message.putNull("content");
        message.putArray("tool_calls").addObject().put("id", "call_" + turn).put("type", "function")
            .putObject("function").put("name", tool).put("arguments", "{\"turn\":" + turn + "}");
      } else {
        message.put("content", "answer " + turn);
      }
      ObjectNode body = RcrtJson.object().put("id", "chatcmpl-" + turn + "-" + round).put("object", "chat.completion").put("model", "scripted");
      body.putArray("choices").addObject().put("index", 0).put("finish_reason", round == 1 ? "tool_calls" : "stop").set("message", message);
      body.putObject("usage").put("prompt_tokens", 10).put("completion_tokens", 5).put("total_tokens", 15);
      // a model takes a moment: kills land inside calls; the short-lease turns (from 500) take 2 to 4 s, longer than many leases
      answerLater(exchange, RcrtJson.write(body), turn >= 500 && turn < 600 && round == 1 ? 2000 + (turn * 137) % 2000 : 150, inModel);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      inModel.decrementAndGet();
    } catch (IOException | RuntimeException e) {
      inModel.decrementAndGet();
      throw e;
    }
  }

  private void tool(HttpExchange exchange) throws IOException {
    inTool.incrementAndGet();
    calls.release();
    try {
      JsonNode input = RcrtJson.parse(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
      int turn = input.path("turn").asInt();
      toolRuns.computeIfAbsent(turn, k -> new AtomicInteger()).incrementAndGet();
      toolStarts.add(System.nanoTime());
      toolStarted.release();
      answerLater(exchange, "{\"turn\":" + turn + ",\"ok\":true}", turn == 999 ? 4000 : 300, inTool);
    } catch (IOException | RuntimeException e) {
      inTool.decrementAndGet();
      throw e;
    }
  }

  /**
   * Answers {@code json} {@code latencyMs} from now on the latency timer, as a model or tool that
   * takes that long would, and then counts the call out of {@code inCall}; no thread waits meanwhile.
   */
  private void answerLater(HttpExchange exchange, String json, long latencyMs, AtomicInteger inCall) {
    latency.schedule(() -> {
      try {
        respond(exchange, json);
      } catch (IOException e) {
        // the caller was killed meanwhile: nobody takes the answer
      } finally {
        inCall.decrementAndGet();
      }
    }, latencyMs, TimeUnit.MILLISECONDS);
  }

  private static void respond(HttpExchange exchange, String json) throws IOException {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(200, bytes.length);
    exchange.getResponseBody().write(bytes);
    exchange.close();
  }

  private String modelUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
  }

  /** Role {@code i}: 0 and 1 serve the agent, 2 and 3 run tools; started and listening. */
  private Process start(int i, int generation) throws Exception {
    return start(i, generation, true);
  }

  /** {@link #start(int, int)}, waiting for it to listen only when {@code await}. */
  private Process start(int i, int generation, boolean await) throws Exception {
    return start(i, generation, await, 1000);
  }

  /** {@link #start(int, int, boolean)} with a lease of {@code leaseMs}. */
  private Process start(int i, int generation, boolean await, int leaseMs) throws Exception {
    Path log = logs.resolve("process-" + i + "-" + generation + ".log");
    List<String> args = new ArrayList<>(List.of("dev.rcrt.cli.Main", "runner", "--store", url, "--lease", String.valueOf(leaseMs)));
    if (i >= 10) { // an agent runner that runs its tools itself
      args.addAll(List.of("--agents", "--no-tools", "--tool-mode", "direct", "--base-url", modelUrl(), "--allow-network", "127.0.0.0/8"));
    } else if (i < 2) {
      args.addAll(List.of("--agents", "--no-tools", "--tool-mode", "event", "--base-url", modelUrl()));
    } else {
      args.addAll(List.of("--concurrency", "3", "--allow-network", "127.0.0.0/8"));
    }
    Process p = TestJvm.start(List.of("-Xmx256m", "-XX:TieredStopAtLevel=1"), args, log);
    if (await) {
      LogWaits.until(log, "runner listening on", p, Duration.ofSeconds(60));
    }
    return p;
  }

  /**
   * Waits until {@code done} holds, looking again after each record the fleet writes (the store's
   * events, from every process), for at most {@code seconds}; returns whether it holds.
   */
  private boolean awaitRecords(java.util.function.BooleanSupplier done, int seconds) throws InterruptedException {
    return dev.rcrt.testing.StoreWaits.until(store, done, java.time.Duration.ofSeconds(seconds));
  }

  private long answered(String sessionPrefix, int n) {
    long done = 0;
    for (int t = 0; t < n; t++) {
      done += store.search(Selector.allTags("agent:response", "session:" + sessionPrefix + t), 1, 0).isEmpty() ? 0 : 1;
    }
    return done;
  }

  @Test
  void aHundredTurnsEachEndWithOneAnswerThoughRunnersAreKilledAtRandom() throws Exception {
    Process[] running = new Process[4];
    for (int i = 0; i < 4; i++) {
      running[i] = start(i, 0);
      processes.add(running[i]);
    }
    for (int t = 0; t < TURNS; t++) { // as a web application would: messages written to the store, answered by the fleet
      store.create(new UserMessage("chaos-" + t, "turn-" + t + ": please run the tool").toBreadcrumb());
    }
    Random random = new Random(24);
    java.util.concurrent.CompletableFuture<Boolean> lockHolder = null;
    int kills = 0;
    int killedInModel = 0;
    int killedInTool = 0;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(240);
    while (kills < Integer.getInteger("chaos.kills", 16) && answeredAll() < TURNS && System.nanoTime() < deadline) {
      // a random moment: after 4 to 16 more requests reached the model or the tool since the last kill, so kills land inside
      // calls and are spread over the run (the first rounds' burst would otherwise pay for them all at its start)
      if (calls.tryAcquire(4 + random.nextInt(13), 30, TimeUnit.SECONDS)) {
        int victim = random.nextInt(4);
        killedInModel += victim < 2 && inModel.get() > 0 ? 1 : 0;
        killedInTool += victim >= 2 && inTool.get() > 0 ? 1 : 0;
        running[victim].destroyForcibly(); // SIGKILL: no clean-up, its claims just run out
        running[victim].waitFor(10, TimeUnit.SECONDS);
        kills++;
        running[victim] = start(victim, kills, false); // restarted at once; it takes up what it finds when it is up
        processes.add(running[victim]);
        calls.drainPermits(); // the next moment is counted from this kill
        if (kills == 8) {
          lockHolder = holdClaimsLocked(3); // the database stalls too: claims, renewals and fenced writes wait 3 s
        }
      }
    }
    awaitRecords(() -> answeredAll() >= TURNS, (int) Math.max(1, TimeUnit.NANOSECONDS.toSeconds(deadline - System.nanoTime())));
    assertThat(answeredAll()).as("turns answered within 240 s (" + kills + " kills)").isEqualTo(TURNS);
    assertThat(lockHolder).as("the claims were locked mid-run").isNotNull();
    assertThat(lockHolder.get(60, TimeUnit.SECONDS)).as("the lock was held and let go").isTrue();

    for (int t = 0; t < TURNS; t++) {
      List<Breadcrumb> answers = store.search(Selector.allTags("agent:response", "session:chaos-" + t), 10, 0);
      assertThat(answers).as("turn " + t + " has exactly one answer").hasSize(1);
      assertThat(answers.get(0).context().get("message").asText()).isEqualTo("answer " + t);
    }
    assertThat(repeatedRecordedRounds).as("no recorded round was asked again").isEmpty();
    List<Breadcrumb> responses = store.search(Selector.schema(ToolResponse.SCHEMA), 1000, 0);
    Map<String, Long> perRequest = responses.stream().collect(Collectors.groupingBy(
        b -> b.tagValue("request:").orElseThrow(), Collectors.counting()));
    assertThat(perRequest).as("one tool request per turn").hasSize(TURNS);
    assertThat(perRequest.values()).as("no tool request has two responses").containsOnly(1L);
    long asked = modelRequests.values().stream().mapToLong(AtomicInteger::get).sum();
    long repeatedUnrecorded = modelRequests.values().stream().filter(c -> c.get() > 1).count();
    System.out.printf("chaos: %d turns, %d kills (%d during a model call, %d during a tool), %d model requests for %d rounds"
            + " (%d rounds asked again after their process died before recording them: %s), tool runs %d for %d requests%n",
        TURNS, kills, killedInModel, killedInTool, asked, 2 * TURNS, repeatedUnrecorded,
        modelRequests.entrySet().stream().filter(e -> e.getValue().get() > 1).map(e -> e.getKey() + "×" + e.getValue()).sorted().toList(),
        toolRuns.values().stream().mapToInt(AtomicInteger::get).sum(), TURNS);
    assertThat(kills).as("the fleet was really shaken").isGreaterThanOrEqualTo(8);
  }

  /**
   * Holds {@code work_claims} locked ({@code EXCLUSIVE}: reads go on, claims, renewals and fenced
   * writes wait) for {@code seconds}, in a transaction of the test's own, as an operator's long
   * statement or a stuck migration would; completes with true once it let go.
   */
  private java.util.concurrent.CompletableFuture<Boolean> holdClaimsLocked(int seconds) {
    return java.util.concurrent.CompletableFuture.supplyAsync(() -> {
      try (var c = TestPostgres.dataSource().getConnection()) {
        c.setAutoCommit(false);
        try (var s = c.createStatement()) {
          s.execute("LOCK TABLE " + schema + ".work_claims IN EXCLUSIVE MODE");
          // the fault lasts this long; nothing is waited for
          new java.util.concurrent.CountDownLatch(1).await(seconds, TimeUnit.SECONDS);
        } finally {
          c.rollback();
        }
        return true;
      } catch (java.sql.SQLException e) {
        throw new IllegalStateException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    });
  }

  /** Two threads that spin until the returned flag is set: the machine is loaded as a user's often is. */
  private static java.util.concurrent.atomic.AtomicBoolean busyLoops() {
    java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
    for (int i = 0; i < 2; i++) {
      Thread spin = new Thread(() -> {
        long x = 0;
        while (!stop.get()) {
          x += System.nanoTime() & 1;
        }
        if (x == 42) {
          System.out.print(""); // keeps the loop from being optimised away
        }
      }, "busy-loop-" + i);
      spin.setDaemon(true);
      spin.start();
    }
    return stop;
  }

  /**
   * {@code messages} turns at once on two agent runners that run their tools themselves, each with
   * a lease of {@code leaseMs}, while two busy loops load the machine; model rounds take 2 to 4 s.
   *
   * @return how many rounds were asked more than once
   */
  private long shortLeases(int leaseMs, int messages) throws Exception {
    java.util.concurrent.atomic.AtomicBoolean stop = busyLoops();
    try {
      processes.add(start(10, 0, true, leaseMs));
      processes.add(start(11, 0, true, leaseMs));
      for (int t = 500; t < 500 + messages; t++) {
        store.create(new UserMessage("chaos-" + t, "turn-" + t + ": please run the tool").toBreadcrumb());
      }
      assertThat(awaitRecords(() -> answeredAll() >= messages, 240)).as("every turn answered").isTrue();
    } finally {
      stop.set(true);
    }
    for (int t = 500; t < 500 + messages; t++) {
      assertThat(store.search(Selector.allTags("agent:response", "session:chaos-" + t), 10, 0)).as("turn " + t + " has one answer").hasSize(1);
      int turn = t;
      assertThat(toolRuns.get(t)).as(() -> "turn " + turn + "'s side-effecting tool ran once; the runners said:\n" + runnerLines("chaos-" + turn))
          .hasValue(1);
    }
    assertThat(repeatedRecordedRounds).as("no recorded round was asked again").isEmpty();
    long lapses = modelRequests.values().stream().filter(c -> c.get() > 1).count();
    long logged = LogWaits.count(List.of(logs.resolve("process-10-0.log"), logs.resolve("process-11-0.log")), "abandoned its step of run");
    System.out.printf("short leases: %d ms, %d turns of 2–4 s rounds, two busy loops: %d rounds asked twice, %d steps abandoned (logged)%n",
        leaseMs, messages, lapses, logged);
    assertThat(logged).as("each round asked again was a step its holder abandoned and logged").isGreaterThanOrEqualTo(lapses);
    assertThat(LogWaits.count(List.of(logs.resolve("process-10-0.log"), logs.resolve("process-11-0.log")), "garbage collector"))
        .as("runners on ZGC, as ./rcrt starts them, are not warned that the collector's pauses outlast their lease").isZero();
    return lapses;
  }

  /** What the two short-lease runners logged about {@code session}, kept for a failure's message (their logs go with the test's directory). */
  private String runnerLines(String session) {
    StringBuilder out = new StringBuilder();
    for (String name : List.of("process-10-0.log", "process-11-0.log")) {
      List<String> lines;
      try {
        lines = java.nio.file.Files.readAllLines(logs.resolve(name));
      } catch (IOException e) {
        out.append(name).append(": unreadable (").append(e.getMessage()).append(")\n");
        continue;
      }
      for (String line : lines) {
        if (line.contains(session) || line.contains("abandoned") || line.contains("claim")) {
          out.append(name).append(": ").append(line).append('\n');
        }
      }
    }
    return out.toString();
  }

  @Test
  void twoRunnersOn300MsLeasesUnderLoadRunEveryToolOnceAndLogEveryLapse() throws Exception {
    // rounds asked twice are usually none at 300 ms, but a loaded machine can stall a renewal past the lease (3 of 20 in one
    // CI run): what is guaranteed, and asserted, is one tool run per turn and a logged abandoned step for each lapse
    shortLeases(300, 20);
  }

  @Test
  void twoRunnersOn100MsLeasesUnderLoadStillRunEveryToolOnceAndLogEveryLapse() throws Exception {
    shortLeases(100, 30);
  }

  private long answeredAll() {
    return store.search(Selector.allTags("agent:response"), 1000, 0).size();
  }

  @Test
  void killingTheProcessWhileItsToolRunsLeavesTheTurnToAnotherProcessOnceTheLeaseRunsOut() throws Exception {
    Process one = start(10, 0);
    Process two = start(11, 0);
    processes.add(one);
    processes.add(two);
    store.create(new UserMessage("chaos-999", "turn-999: please run the tool").toBreadcrumb());
    assertThat(toolStarted.tryAcquire(60, TimeUnit.SECONDS)).as("the tool started").isTrue();
    // the process holding the run (its claim names its pid) dies while its tool runs
    Process victim = holder(one, two);
    long killed = System.nanoTime();
    victim.destroyForcibly();
    assertThat(toolStarted.tryAcquire(60, TimeUnit.SECONDS)).as("another process ran the unanswered request again").isTrue();
    assertThat(toolStarts).hasSize(2);
    double resumedAfter = (toolStarts.get(1) - killed) / 1e9;
    awaitRecords(() -> answeredAll() >= 1, 60);
    List<Breadcrumb> answers = store.search(Selector.allTags("agent:response", "session:chaos-999"), 10, 0);
    assertThat(answers).singleElement().satisfies(a -> assertThat(a.context().get("message").asText()).isEqualTo("answer 999"));
    assertThat(modelRequests.get("999/1")).as("the recorded round was not asked again").hasValue(1);
    assertThat(store.search(Selector.schema(ToolResponse.SCHEMA), 10, 0)).hasSize(1);
    System.out.printf("resume after SIGKILL: the other process ran the request again %.2f s after the kill (the call's claim: the tool's"
        + " 6 s limit plus the 1 s lease)%n", resumedAfter);
    assertThat(resumedAfter).as("not before the call's claim ran out: the killed process's call might still have been running")
        .isGreaterThanOrEqualTo(4.0);
  }

  /** Sends {@code SIGSTOP} or {@code SIGCONT} (by name, without {@code SIG}) to a process. */
  private static void signal(Process p, String name) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(p.pid())).inheritIO().start();
      kill.waitFor(10, TimeUnit.SECONDS);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The process whose pid the run's current claim names, of {@code candidates}. */
  private Process holder(Process... candidates) throws Exception {
    try (var c = TestPostgres.dataSource().getConnection();
        var q = c.prepareStatement("SELECT owner FROM " + schema + ".work_claims WHERE key LIKE 'agent.run:%' AND NOT done")) {
      try (var rs = q.executeQuery()) {
        assertThat(rs.next()).as("a process holds the run").isTrue();
        String owner = rs.getString(1);
        for (Process p : candidates) {
          if (owner.contains(":" + p.pid() + "@")) {
            return p;
          }
        }
        throw new AssertionError("no candidate holds the run: " + owner);
      }
    }
  }

  @Test
  void aHolderStoppedDuringItsModelCallPastItsLeaseLosesTheRunAndActsOnNothingWhenContinued() throws Exception {
    Process one = start(10, 0);
    Process two = start(11, 0);
    processes.add(one);
    processes.add(two);
    store.create(new UserMessage("chaos-" + STALLED_TURN, "turn-" + STALLED_TURN + ": please run the tool").toBreadcrumb());
    assertThat(stallEntered.await(60, TimeUnit.SECONDS)).as("the first model call began").isTrue();
    Process stopped = holder(one, two);
    Process other = stopped == one ? two : one;
    signal(stopped, "STOP"); // stalled as a GC pause or an operator's SIGSTOP would: it neither renews nor dies
    stallRelease.countDown(); // its model answers into a process that cannot read the answer yet

    awaitRecords(() -> answeredAll() >= 1, 90);
    assertThat(answeredAll()).as("the other process took the run over and answered it").isEqualTo(1);
    Path stoppedLog = logs.resolve("process-" + (stopped == one ? 10 : 11) + "-0.log");
    signal(stopped, "CONT");
    LogWaits.until(stoppedLog, "abandoned its step of run", stopped, Duration.ofSeconds(60));

    List<Breadcrumb> answers = store.search(Selector.allTags("agent:response", "session:chaos-" + STALLED_TURN), 10, 0);
    assertThat(answers).as("one answer").singleElement()
        .satisfies(a -> assertThat(a.context().get("message").asText()).isEqualTo("answer " + STALLED_TURN));
    assertThat(store.search(Selector.allTags("agent:round", "session:chaos-" + STALLED_TURN), 10, 0)).as("one round record").hasSize(1);
    assertThat(toolRuns.get(STALLED_TURN)).as("the side-effecting tool ran once").hasValue(1);
    assertThat(store.search(Selector.schema(ToolResponse.SCHEMA), 10, 0)).hasSize(1);
    assertThat(repeatedRecordedRounds).as("no recorded round was asked again").isEmpty();
    assertThat(other.isAlive()).isTrue();
  }

  @Test
  void aTurnWaitingForApprovalWhileEveryProcessIsStoppedIsFinishedAfterTheyRestart() throws Exception {
    Process[] running = new Process[4];
    for (int i = 0; i < 4; i++) {
      running[i] = start(i, 0);
      processes.add(running[i]);
    }
    store.create(new UserMessage("chaos-0", "turn-0: please pay").toBreadcrumb());
    Runs runs = new Runs(store);
    awaitRecords(() -> !runs.list(5, Run.Status.WAITING_FOR_APPROVAL).isEmpty(), 60);
    List<Run> found = runs.list(5, Run.Status.WAITING_FOR_APPROVAL);
    assertThat(found).as("the run waits for approval").isNotEmpty();
    Run waiting = found.get(0);
    for (Process p : running) {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }

    CliHarness listed = CliHarness.run("runs", "list", "--store", url);
    assertThat(listed.out()).contains(waiting.id()).contains("waiting_for_approval").contains("approval of paytool");
    String call = waiting.pending().get(0).requestId();
    CliHarness approved = CliHarness.run("runs", "approve", waiting.id(), call, "--store", url, "--reason", "fine");
    assertThat(approved.status).as(approved.err()).isZero();

    for (int i = 0; i < 4; i++) {
      processes.add(start(i, 1));
    }
    awaitRecords(() -> answeredAll() >= 1, 60);
    Run done = runs.show(waiting.id()).orElseThrow();
    assertThat(done.status()).isEqualTo(Run.Status.DONE);
    assertThat(done.answer().message()).isEqualTo("answer 0");
    assertThat(store.search(Selector.allTags("agent:response"), 10, 0)).hasSize(1);
    assertThat(modelRequests.get("0/1")).as("round 1 asked once").hasValue(1);
    assertThat(toolRuns.get(0)).as("the approved call ran once").hasValue(1);
    assertThat(repeatedRecordedRounds).isEmpty();
  }
}
