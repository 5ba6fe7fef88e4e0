package dev.rcrt.benchmarks;

import dev.dbos.transact.DBOS;
import dev.dbos.transact.config.DBOSConfig;
import dev.dbos.transact.workflow.Workflow;
import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.AgentExecutor;
import dev.rcrt.agent.AgentResponse;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.llm.ToolCall;
import dev.rcrt.postgres.PostgresBreadcrumbStore;
import dev.rcrt.postgres.TestPostgres;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.ToolRunner;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import javax.sql.DataSource;

/**
 * The same durable turn through the SDK and through DBOS Transact for Java ({@code
 * dev.dbos:transact}), side by side in one run on one PostgreSQL server: a model round that returns
 * a tool call, a no-op tool, the model's answer, each step checkpointed before the next. The SDK
 * records the turn as a run ({@code user.message.v1}, the round, the {@code tool.request.v1} and
 * {@code tool.response.v1}, the answer, the run's claim); DBOS as a workflow of three steps. With
 * 1, 2 and 4 workers (each an {@code AgentExecutor} on its own store object, or a {@code DBOS}
 * instance with its own executor id), {@value #TURNS} turns, {@value #IN_FLIGHT} in flight, handed
 * to the workers in turn, on the same connection pool. Prints turns/s, median turn time,
 * statements per turn (every statement through the pool) and, when the server has {@code
 * pg_stat_statements}, PostgreSQL execution time per turn, and the client's CPU time per turn (this
 * process's, which runs both sides' clients and none of PostgreSQL); then checks the work (one answer per
 * turn, the tool ran once per turn). {@code -Dworkers=1} (a comma-separated list) measures fewer
 * worker counts.
 *
 * <p>Durable settings need a server of your own: start PostgreSQL with {@code fsync=on}, {@code
 * synchronous_commit=on} and {@code shared_preload_libraries=pg_stat_statements}, and point {@code
 * RCRT_TEST_POSTGRES_URL} at it; otherwise the tests' server is used ({@code fsync=off}) and the
 * execution times are not available. Run: {@code java -cp
 * "rcrt-benchmarks/target/rcrt-benchmarks.jar:rcrt-benchmarks/target/lib/*"
 * dev.rcrt.benchmarks.DurableTurnLoad}.
 */
public final class DurableTurnLoad {
  private static final int TURNS = 1000;
  private static final int WARM = 1000;
  private static final int IN_FLIGHT = 32;

  private DurableTurnLoad() {}

  /** What one side measured with one number of workers. */
  private record Figures(
      String side, int workers, double turnsPerSecond, double p50Ms, double statementsPerTurn, double cpuMsPerTurn, double execMsPerTurn) {
    void print() {
      System.out.printf("%-6s %d worker(s): %7.0f turns/s  p50 %7.1f ms  %6.1f statements/turn  %5.2f ms client CPU/turn  %s%n", side,
          workers, turnsPerSecond, p50Ms, statementsPerTurn, cpuMsPerTurn, execMsPerTurn < 0 ? "PostgreSQL time n/a (no pg_stat_statements)"
              : String.format("%.2f ms PostgreSQL execution/turn", execMsPerTurn));
    }
  }

  /** One worker's turn: runs turn {@code i} to its answer. */
  private interface Worker extends AutoCloseable {
    void turn(int i) throws Exception;

    @Override
    void close();
  }

  public static void main(String[] args) throws Exception {
    DataSource pool = TestPostgres.dataSource();
    boolean stats = statementStats(pool);
    System.out.println("server: " + setting(pool, "server_version") + ", fsync=" + setting(pool, "fsync") + ", synchronous_commit="
        + setting(pool, "synchronous_commit") + ", pg_stat_statements " + (stats ? "on" : "off"));
    List<Figures> all = new ArrayList<>();
    int[] counts = workerCounts();
    for (int workers : counts) {
      all.add(sdk(pool, workers, stats));
      all.add(dbos(pool, workers, stats));
      if (stats) {
        top(pool, 8); // what the last side, DBOS, spent its time on; the SDK's is printed after its own runs below
      }
    }
    all.forEach(Figures::print);
    if (stats) {
      sdk(pool, 1, true);
      System.out.println("where the SDK's PostgreSQL time goes (1 worker):");
      top(pool, 12);
    }
    for (int workers : counts) {
      Figures s = find(all, "sdk", workers);
      Figures d = find(all, "dbos", workers);
      System.out.printf("ratio SDK/DBOS, %d worker(s): turns/s %.2f, statements/turn %.2f, client CPU/turn %.2f%s%n", workers,
          s.turnsPerSecond / d.turnsPerSecond, s.statementsPerTurn / d.statementsPerTurn, s.cpuMsPerTurn / d.cpuMsPerTurn,
          s.execMsPerTurn < 0 ? "" : String.format(", PostgreSQL execution/turn %.2f", s.execMsPerTurn / d.execMsPerTurn));
    }
    System.exit(0);
  }

  /** The numbers of workers to measure: {@code -Dworkers=1,2,4} (the default). */
  private static int[] workerCounts() {
    return Arrays.stream(System.getProperty("workers", "1,2,4").split(",")).map(String::trim).mapToInt(Integer::parseInt).toArray();
  }

  private static Figures find(List<Figures> all, String side, int workers) {
    return all.stream().filter(f -> f.side.equals(side) && f.workers == workers).findFirst().orElseThrow();
  }

  /** The SDK: {@code workers} executors, each on its own store object and runner, tools in process. */
  private static Figures sdk(DataSource pool, int workers, boolean stats) throws Exception {
    CountingDataSource counted = new CountingDataSource(pool);
    String schema = TestPostgres.freshSchema();
    AtomicInteger toolRuns = new AtomicInteger();
    LlmClient instant = r -> r.messages().get(r.messages().size() - 1).role().equals("tool")
        ? ChatResponse.text("done")
        : ChatResponse.toolCalls(new ToolCall("c1", "noop", "{}"));
    List<PostgresBreadcrumbStore> stores = new ArrayList<>();
    List<Worker> fleet = new ArrayList<>();
    for (int w = 0; w < workers; w++) {
      PostgresBreadcrumbStore store = PostgresBreadcrumbStore.builder(counted).schema(schema).build();
      stores.add(store);
      if (w == 0) {
        BuiltinTools.seed(store);
        store.create(AgentDefinition.defaultChatAgent());
        store.create(dev.rcrt.core.BreadcrumbCreate.builder("tool.definition.v1", "noop")
            .context(RcrtJson.parse("{\"name\":\"noop\",\"description\":\"Does nothing\"}")).build());
      }
      ToolRunner runner = ToolRunner.builder(store).handler("noop", (in, ctx) -> RcrtJson.object().put("ran", toolRuns.incrementAndGet())).build();
      AgentExecutor executor = AgentExecutor.builder(instant, runner).agent(AgentDefinition.load(store, "default-chat-assistant")).build();
      fleet.add(new Worker() {
        @Override
        public void turn(int i) {
          AgentResponse answer = executor.ask("turn-" + i, "turn " + i);
          if (!"done".equals(answer.message())) {
            throw new IllegalStateException("turn " + i + " answered " + answer.message());
          }
        }

        @Override
        public void close() {
          executor.close();
          runner.close();
        }
      });
    }
    try {
      Figures f = drive("sdk", workers, fleet, counted, pool, stats);
      long answers = stores.get(0).search(Selector.allTags("agent:response"), 5000, 0).size();
      check("sdk", answers, toolRuns.get());
      return f;
    } finally {
      fleet.forEach(Worker::close);
      stores.forEach(PostgresBreadcrumbStore::close);
    }
  }

  /** DBOS Transact's turn: a workflow of three checkpointed steps. */
  public interface Turn {
    String turn(String message);
  }

  /** The workflow: model round, tool, model round, each a DBOS step. */
  public static final class TurnWorkflow implements Turn {
    private final DBOS dbos;
    private final AtomicInteger toolRuns;

    TurnWorkflow(DBOS dbos, AtomicInteger toolRuns) {
      this.dbos = dbos;
      this.toolRuns = toolRuns;
    }

    @Override
    @Workflow(name = "turn")
    public String turn(String message) {
      String call = dbos.runStep(() -> "{\"tool\":\"noop\",\"input\":{}}", "model-round-1");
      String result = dbos.runStep(() -> "{\"ran\":" + toolRuns.incrementAndGet() + "}", "tool");
      return dbos.runStep(() -> call.isEmpty() || result.isEmpty() ? "" : "done", "model-round-2");
    }
  }

  /** DBOS: {@code workers} instances on one system schema, each with its own executor id. */
  private static Figures dbos(DataSource pool, int workers, boolean stats) throws Exception {
    CountingDataSource counted = new CountingDataSource(pool);
    String schema = "dbos_" + TestPostgres.freshSchema();
    AtomicInteger toolRuns = new AtomicInteger();
    AtomicInteger answers = new AtomicInteger();
    List<Worker> fleet = new ArrayList<>();
    for (int w = 0; w < workers; w++) {
      DBOS dbos = new DBOS(DBOSConfig.defaults("rcrt-bench").withDataSource(counted).withDatabaseSchema(schema)
          .withExecutorId("worker-" + w).withAdminServer(false));
      Turn proxy = dbos.registerProxy(Turn.class, new TurnWorkflow(dbos, toolRuns));
      dbos.launch();
      fleet.add(new Worker() {
        @Override
        public void turn(int i) {
          if (!"done".equals(proxy.turn("turn " + i))) {
            throw new IllegalStateException("workflow " + i + " did not answer");
          }
          answers.incrementAndGet();
        }

        @Override
        public void close() {
          dbos.shutdown();
        }
      });
    }
    try {
      Figures f = drive("dbos", workers, fleet, counted, pool, stats);
      check("dbos", answers.get(), toolRuns.get());
      return f;
    } finally {
      fleet.forEach(Worker::close);
    }
  }

  /** Warms up, analyzes the database, then runs {@value #TURNS} turns with {@value #IN_FLIGHT} in flight, handed to the workers in turn. */
  private static Figures drive(String side, int workers, List<Worker> fleet, CountingDataSource counted, DataSource pool, boolean stats)
      throws Exception {
    ExecutorService callers = Executors.newFixedThreadPool(IN_FLIGHT);
    try {
      run(callers, WARM, i -> fleet.get(i % workers), 1_000_000);
      // a fresh schema has no planner statistics until autovacuum analyzes it (a minute or more later): the measured turns
      // run on analyzed tables, as a deployment's do
      execute(pool, "ANALYZE");
      long before = counted.statements.sum();
      if (stats) {
        execute(pool, "SELECT pg_stat_statements_reset()");
      }
      long start = System.nanoTime();
      long cpuStart = processCpuNanos();
      long[] nanos = run(callers, TURNS, i -> fleet.get(i % workers), 0);
      double seconds = (System.nanoTime() - start) / 1e9;
      double cpuMs = (processCpuNanos() - cpuStart) / 1e6 / TURNS;
      double execMs = stats ? execTimeMs(pool) / TURNS : -1;
      Arrays.sort(nanos);
      return new Figures(side, workers, TURNS / seconds, nanos[TURNS / 2] / 1e6, (counted.statements.sum() - before) / (double) TURNS, cpuMs,
          execMs);
    } finally {
      callers.shutdownNow();
    }
  }

  /** The CPU time this process (the clients of both sides; PostgreSQL runs apart) has used, in ns. */
  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  private static long[] run(ExecutorService callers, int n, IntFunction<Worker> worker, int offset) throws Exception {
    long[] nanos = new long[n];
    List<Future<?>> done = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int turn = offset + i;
      int at = i;
      done.add(callers.submit(() -> {
        long t = System.nanoTime();
        worker.apply(at).turn(turn);
        nanos[at] = System.nanoTime() - t;
        return null;
      }));
    }
    for (Future<?> f : done) {
      f.get();
    }
    return nanos;
  }

  /** The work check: every turn answered once and its tool run once. */
  private static void check(String side, long answers, int toolRuns) {
    long expected = TURNS + WARM;
    System.out.printf("%-6s work check: %d answers, %d tool runs for %d turns: %s%n", side, answers, toolRuns, expected,
        answers == expected && toolRuns == expected ? "ok" : "MISMATCH");
  }

  /** The {@code n} statements with the most execution time since the last reset. */
  private static void top(DataSource pool, int n) throws Exception {
    try (Connection c = pool.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
        "SELECT calls, round(total_exec_time::numeric, 1), round((total_exec_time / greatest(calls, 1))::numeric, 3), left(regexp_replace(query, '\\s+', ' ', 'g'), 160)"
            + " FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
            + " AND query NOT LIKE '%pg_stat_statements%' ORDER BY total_exec_time DESC LIMIT " + n)) {
      while (rs.next()) {
        System.out.printf("  %7d calls %9s ms total %8s ms each  %s%n", rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4));
      }
    }
  }

  private static boolean statementStats(DataSource pool) {
    try {
      execute(pool, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
      execute(pool, "SELECT pg_stat_statements_reset()");
      return true;
    } catch (Exception e) {
      return false;
    }
  }

  /** PostgreSQL's execution time in this database since the last reset, in ms (the statistics queries excluded). */
  private static double execTimeMs(DataSource pool) throws Exception {
    try (Connection c = pool.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
        "SELECT coalesce(sum(total_exec_time), 0) FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
            + " AND query NOT LIKE '%pg_stat_statements%'")) {
      rs.next();
      return rs.getDouble(1);
    }
  }

  private static void execute(DataSource pool, String sql) throws Exception {
    try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static String setting(DataSource pool, String name) throws Exception {
    try (Connection c = pool.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW " + name)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
