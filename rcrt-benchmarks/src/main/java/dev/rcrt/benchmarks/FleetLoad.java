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
    try (PostgresBreadcrumbStore writer = postgres(schema); PostgresBreadcrumbStore reader = postgres(schema)) {
      latency("postgres", writer, reader);
    }
    throughput("memory", 1, List.of(new InMemoryBreadcrumbStore()));
    for (int runners : new int[] {1, 2, 4}) {
      String s = TestPostgres.freshSchema();
      List<BreadcrumbStore> stores = new ArrayList<>();
      for (int i = 0; i <= runners; i++) {
        stores.add(postgres(s));
      }
      throughput("postgres", runners, stores);
      for (BreadcrumbStore store : stores) {
        ((PostgresBreadcrumbStore) store).close();
      }
    }
    System.exit(0);
  }

  private static PostgresBreadcrumbStore postgres(String schema) {
    return PostgresBreadcrumbStore.builder(TestPostgres.dataSource()).schema(schema).build();
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
      warm(agent, 50);
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
