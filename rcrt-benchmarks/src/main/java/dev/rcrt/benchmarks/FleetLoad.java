package dev.rcrt.benchmarks;

import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.postgres.PostgresBreadcrumbStore;
import dev.rcrt.postgres.TestPostgres;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.ToolCallOptions;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A load driver for what JMH cannot time: how long an event takes from one store object's commit to
 * delivery on another's subscription (each with its own connections and event listener, the path a
 * second process takes), and how many no-op tool requests a fleet of 1, 2 and 4 listening runners
 * (each on its own store object) answers per second. Prints one line per figure, PostgreSQL beside
 * the in-memory store.
 *
 * <p>Run: {@code java -cp "rcrt-benchmarks/target/rcrt-benchmarks.jar:rcrt-benchmarks/target/lib/*"
 * dev.rcrt.benchmarks.FleetLoad}.
 */
public final class FleetLoad {
  private static final int EVENTS = 2000;
  private static final int REQUESTS = 1000;

  private FleetLoad() {}

  public static void main(String[] args) throws Exception {
    InMemoryBreadcrumbStore memory = new InMemoryBreadcrumbStore();
    latency("memory", memory, memory);
    String schema = TestPostgres.freshSchema();
    try (PostgresBreadcrumbStore writer = postgres(schema, TestPostgres.dataSource());
        PostgresBreadcrumbStore reader = postgres(schema, TestPostgres.dataSource())) {
      latency("postgres", writer, reader);
    }
    pgbench(16);
    throughput("memory", 1, List.of(new InMemoryBreadcrumbStore()));
    for (int runners : new int[] {1, 2, 4}) {
      CountingDataSource counted = new CountingDataSource(TestPostgres.dataSource());
      List<BreadcrumbStore> stores = stores(runners + 1, counted);
      throughput("postgres", runners, stores);
      System.out.printf("  statements per request (event reading included): %.1f%n", counted.statements.sum() / (double) (REQUESTS + WARM));
      close(stores);
    }
    for (int runners : new int[] {1, 2, 4}) {
      CountingDataSource counted = new CountingDataSource(TestPostgres.dataSource());
      List<BreadcrumbStore> stores = stores(runners + 1, counted);
      turns(runners, stores);
      System.out.printf("  statements per turn (event reading included): %.1f%n", counted.statements.sum() / (double) TURNS);
      close(stores);
    }
    System.exit(0);
  }

  private static final int WARM = 50;
  private static final int TURNS = 300;

  private static PostgresBreadcrumbStore postgres(String schema, javax.sql.DataSource dataSource) {
    return PostgresBreadcrumbStore.builder(dataSource).schema(schema).build();
  }

  private static List<BreadcrumbStore> stores(int n, javax.sql.DataSource dataSource) {
    String s = TestPostgres.freshSchema();
    List<BreadcrumbStore> stores = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      stores.add(postgres(s, dataSource));
    }
    return stores;
  }

  private static void close(List<BreadcrumbStore> stores) {
    for (BreadcrumbStore store : stores) {
      ((PostgresBreadcrumbStore) store).close();
    }
  }

  /**
   * PostgreSQL's own capacity on this machine, the yardstick: {@code pgbench}'s built-in TPC-B-like
   * script (scale 4, {@code clients} clients, 2 threads, 15 s) against the same server and settings.
   */
  private static void pgbench(int clients) throws Exception {
    java.net.URI jdbc = java.net.URI.create(TestPostgres.jdbcUrl().substring("jdbc:".length()));
    List<String> target = List.of("-h", jdbc.getHost(), "-p", String.valueOf(jdbc.getPort()), "-U", "postgres", "postgres");
    List<String> init = new ArrayList<>(List.of("pgbench", "-i", "-q", "-s", "4"));
    init.addAll(target);
    List<String> run = new ArrayList<>(List.of("pgbench", "-n", "-c", String.valueOf(clients), "-j", "2", "-T", "15"));
    run.addAll(target);
    try {
      if (new ProcessBuilder(init).redirectErrorStream(true).start().waitFor() != 0) {
        System.out.println("pgbench: initialisation failed");
        return;
      }
      Process p = new ProcessBuilder(run).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      p.waitFor();
      out.lines().filter(l -> l.startsWith("tps") || l.startsWith("latency average") || l.startsWith("pgbench (")).forEach(l ->
          System.out.println("pgbench -c " + clients + " -j 2 (TPC-B-like, scale 4): " + l.strip()));
    } catch (java.io.IOException e) {
      System.out.println("pgbench: not found on this machine (" + e.getMessage() + "); install postgresql-client for the yardstick");
    }
  }

  /**
   * {@code runners} agent runners ({@code AgentExecutor.start()} on their own store objects, tools
   * run in-process), {@value #TURNS} user messages written by another store object, each answered
   * in two model rounds (a tool call, then the answer) by an instant model: turns and turn steps
   * (model rounds + tool dispatches) per second.
   */
  private static void turns(int runners, List<BreadcrumbStore> stores) throws Exception {
    BreadcrumbStore writer = stores.get(stores.size() - 1);
    BuiltinTools.seed(writer);
    writer.create(dev.rcrt.agent.AgentDefinition.defaultChatAgent());
    dev.rcrt.llm.LlmClient instant = r -> r.messages().get(r.messages().size() - 1).role().equals("tool")
        ? dev.rcrt.llm.ChatResponse.text("done")
        : dev.rcrt.llm.ChatResponse.toolCalls(new dev.rcrt.llm.ToolCall("c1", "echo", "{\"message\":\"hi\"}"));
    List<ToolRunner> tools = new ArrayList<>();
    List<dev.rcrt.agent.AgentExecutor> agents = new ArrayList<>();
    List<Subscription> serving = new ArrayList<>();
    CountDownLatch answered = new CountDownLatch(TURNS);
    try (Subscription counting = writer.subscribe(Selector.schema("agent.response.v1").withAllTags("agent:response"), e -> answered.countDown())) {
      for (int i = 0; i < runners; i++) {
        ToolRunner r = ToolRunner.builder(stores.get(i)).build();
        tools.add(r);
        dev.rcrt.agent.AgentExecutor executor = dev.rcrt.agent.AgentExecutor.builder(instant, r)
            .agent(dev.rcrt.agent.AgentDefinition.fromBreadcrumb(dev.rcrt.core.spi.Records.created(
                dev.rcrt.agent.AgentDefinition.defaultChatAgent(), "agent", java.time.Instant.now())))
            .build();
        agents.add(executor);
        serving.add(executor.start());
      }
      long start = System.nanoTime();
      for (int t = 0; t < TURNS; t++) {
        writer.create(new dev.rcrt.agent.UserMessage("load-" + t, "turn " + t).toBreadcrumb());
      }
      if (!answered.await(300, TimeUnit.SECONDS)) {
        throw new IllegalStateException(answered.getCount() + " turns not answered");
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      System.out.printf("agent turns postgres %d runner(s): %7.0f turns/s, %7.0f turn steps/s  (%d turns of 2 model rounds and 1 tool call in %.2f s)%n",
          runners, TURNS / seconds, 3 * TURNS / seconds, TURNS, seconds);
    } finally {
      serving.forEach(Subscription::close);
      agents.forEach(dev.rcrt.agent.AgentExecutor::close);
      tools.forEach(ToolRunner::close);
    }
  }

  /** Commit on {@code writer} → delivery to a subscriber of {@code reader}, one write every 2 ms. */
  private static void latency(String kind, BreadcrumbStore writer, BreadcrumbStore reader) throws Exception {
    long[] micros = new long[EVENTS];
    CountDownLatch all = new CountDownLatch(EVENTS);
    try (Subscription ignored = reader.subscribe(Selector.schema("ping.v1"), e -> {
      int i = e.breadcrumb().context().get("i").asInt();
      micros[i] = (System.nanoTime() - e.breadcrumb().context().get("sent").asLong()) / 1000;
      all.countDown();
    })) {
      for (int i = 0; i < EVENTS; i++) {
        writer.create(BreadcrumbCreate.builder("ping.v1", "ping " + i)
            .context(RcrtJson.object().put("i", i).put("sent", System.nanoTime())).build());
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
      }
      if (!all.await(60, TimeUnit.SECONDS)) {
        throw new IllegalStateException(kind + ": " + all.getCount() + " events never arrived");
      }
    }
    long[] sorted = micros.clone();
    Arrays.sort(sorted);
    System.out.printf("event latency %-8s p50 %8.2f ms  p99 %8.2f ms  max %8.2f ms  (%d events)%n", kind,
        sorted[EVENTS / 2] / 1000.0, sorted[EVENTS * 99 / 100] / 1000.0, sorted[EVENTS - 1] / 1000.0, EVENTS);
  }

  /** {@code stores.size() - 1} listening runners, one store object each; the last store object writes the requests. */
  private static void throughput(String kind, int runners, List<BreadcrumbStore> stores) throws Exception {
    BreadcrumbStore agentStore = stores.get(stores.size() - 1);
    BuiltinTools.seed(agentStore);
    List<ToolRunner> fleet = new ArrayList<>();
    List<Subscription> listening = new ArrayList<>();
    for (int i = 0; i < runners; i++) {
      ToolRunner r = ToolRunner.builder(stores.size() == 1 ? agentStore : stores.get(i)).listenerConcurrency(4).build();
      fleet.add(r);
      listening.add(r.listen());
    }
    try (ToolRunner agent = ToolRunner.builder(agentStore).build()) {
      warm(agent, WARM);
      long start = System.nanoTime();
      List<CompletableFuture<ToolResponse>> answers = new ArrayList<>(REQUESTS);
      for (int i = 0; i < REQUESTS; i++) {
        answers.add(agent.dispatch(ToolRequest.of("echo", RcrtJson.object().put("message", "m" + i), "agent"), ToolCallOptions.host()));
      }
      for (CompletableFuture<ToolResponse> a : answers) {
        a.get(120, TimeUnit.SECONDS);
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      System.out.printf("tool requests %-8s %d runner(s): %7.0f requests/s  (%d no-op requests in %.2f s)%n",
          kind, runners, REQUESTS / seconds, REQUESTS, seconds);
    } finally {
      listening.forEach(Subscription::close);
      fleet.forEach(ToolRunner::close);
    }
  }

  private static void warm(ToolRunner agent, int n) throws Exception {
    for (int i = 0; i < n; i++) {
      agent.dispatch(ToolRequest.of("echo", RcrtJson.object().put("message", "warm"), "agent"), ToolCallOptions.host())
          .get(60, TimeUnit.SECONDS);
    }
  }
}
