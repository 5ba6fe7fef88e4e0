package dev.rcrt.benchmarks;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.VectorSearch;
import dev.rcrt.embeddings.minilm.MiniLmEmbeddings;
import dev.rcrt.postgres.PostgresBreadcrumbStore;
import dev.rcrt.postgres.TestPostgres;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Search by meaning, measured as a whole (not JMH: the set-up writes 100,000 records): MiniLM's
 * texts per second in batches of 32; what embedding adds to a {@code create} on the caller's
 * thread; vector search over 100,000 records in memory (exact) and on PostgreSQL (the process's
 * index, exact and HNSW), median and p99, with HNSW's recall@10 against exact; and the time a new
 * process takes to rebuild its index from the table. Search latencies use a synthetic provider
 * (clustered random unit vectors, 384 dimensions: 1,000 centres plus noise) so that the set-up does
 * not take MiniLM 4 minutes; the search cost does not depend on the model. Prints one line per
 * figure. Run: {@code java -cp "rcrt-benchmarks/target/rcrt-benchmarks.jar:rcrt-benchmarks/target/lib/*"
 * dev.rcrt.benchmarks.VectorSearchLoad [records]}.
 */
public final class VectorSearchLoad {
  private static final int DIMENSIONS = 384;

  private VectorSearchLoad() {}

  public static void main(String[] args) throws Exception {
    int records = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
    embeddingThroughput();
    createCost();
    memorySearch(records);
    postgresSearch(records);
  }

  private static void embeddingThroughput() {
    try (MiniLmEmbeddings minilm = MiniLmEmbeddings.create()) {
      List<String> batch = new ArrayList<>();
      for (int i = 0; i < 32; i++) {
        batch.add("User message " + i + ": what is the weather in Oslo tomorrow and should I take the train?");
      }
      minilm.embed(batch); // load and warm up
      for (int i = 0; i < 5; i++) {
        minilm.embed(batch);
      }
      int rounds = 30;
      long t0 = System.nanoTime();
      for (int i = 0; i < rounds; i++) {
        minilm.embed(batch);
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      System.out.printf("MiniLM in process: %.0f texts/s (batches of 32 short texts, %d cores)%n", rounds * 32 / seconds, Runtime.getRuntime().availableProcessors());
      long q0 = System.nanoTime();
      for (int i = 0; i < 50; i++) {
        minilm.embed(List.of("How many yen is " + i + " euros?"));
      }
      System.out.printf("MiniLM in process: one query embedded in %.2f ms (mean of 50)%n", (System.nanoTime() - q0) / 1e6 / 50);
    }
  }

  private static void createCost() {
    try (MiniLmEmbeddings minilm = MiniLmEmbeddings.create()) {
      InMemoryBreadcrumbStore plain = InMemoryBreadcrumbStore.builder().eventExecutor(Runnable::run).build();
      InMemoryBreadcrumbStore embedded = InMemoryBreadcrumbStore.builder().eventExecutor(Runnable::run).embeddings(minilm).build();
      for (int round = 0; round < 3; round++) {
        long[] a = creates(plain, 20_000);
        long[] b = creates(embedded, 20_000);
        if (round == 2) {
          System.out.printf("create on the caller's thread, median of 20,000: %d ns without embeddings, %d ns with (the id is queued; the model runs on its own thread)%n",
              a[a.length / 2], b[b.length / 2]);
        }
      }
    }
  }

  private static long[] creates(BreadcrumbStore store, int n) {
    long[] took = new long[n];
    for (int i = 0; i < n; i++) {
      BreadcrumbCreate c = BreadcrumbCreate.builder("user.message.v1", "m" + i).context(RcrtJson.object().put("content", "hello number " + i)).build();
      long t0 = System.nanoTime();
      store.create(c);
      took[i] = System.nanoTime() - t0;
    }
    Arrays.sort(took);
    return took;
  }

  private static void memorySearch(int records) throws Exception {
    InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().eventExecutor(Runnable::run).embeddings(new ClusteredEmbeddings()).build();
    fill(store, records, 1);
    VectorSearch v = store.vectorSearch().orElseThrow();
    if (!v.awaitIndexed(Duration.ofMinutes(10))) {
      throw new IllegalStateException("memory index did not catch up");
    }
    latency("memory, exact", v, records);
  }

  private static void postgresSearch(int records) throws Exception {
    String schema = TestPostgres.freshSchema();
    try (PostgresBreadcrumbStore writer = PostgresBreadcrumbStore.builder(TestPostgres.dataSource()).schema(schema).embeddings(new ClusteredEmbeddings()).build()) {
      long t0 = System.nanoTime();
      fill(writer, records, 4);
      if (!writer.vectorSearch().orElseThrow().awaitIndexed(Duration.ofMinutes(20))) {
        throw new IllegalStateException("postgres index did not catch up");
      }
      System.out.printf("postgres: %d records written and embedded (synthetic) in %.0f s%n", records, (System.nanoTime() - t0) / 1e9);
    }
    long t0 = System.nanoTime();
    try (PostgresBreadcrumbStore graph = PostgresBreadcrumbStore.builder(TestPostgres.dataSource()).schema(schema).embeddings(new ClusteredEmbeddings()).exactVectorSearchBelow(0).build()) {
      VectorSearch g = graph.vectorSearch().orElseThrow();
      g.awaitIndexed(Duration.ofMinutes(10));
      g.nearest("first", 10, Selector.all()); // the index's first reopen
      System.out.printf("postgres: a new process rebuilt its index of %d vectors from the table in %.1f s%n", records, (System.nanoTime() - t0) / 1e9);
      PostgresBreadcrumbStore exact = PostgresBreadcrumbStore.builder(TestPostgres.dataSource()).schema(schema).embeddings(new ClusteredEmbeddings())
          .exactVectorSearchBelow(Integer.MAX_VALUE).build();
      VectorSearch e = exact.vectorSearch().orElseThrow();
      e.awaitIndexed(Duration.ofMinutes(10));
      latency("postgres, HNSW", g, records);
      latency("postgres, exact", e, records);
      double recall = 0;
      int queries = 100;
      for (int i = 0; i < queries; i++) {
        String q = "query " + i;
        Set<String> truth = new HashSet<>();
        e.nearest(q, 10, Selector.all()).forEach(b -> truth.add(b.id()));
        recall += g.nearest(q, 10, Selector.all()).stream().filter(b -> truth.contains(b.id())).count() / 10.0;
      }
      System.out.printf("postgres: HNSW recall@10 against exact over %d queries: %.3f%n", queries, recall / queries);
      exact.close();
    }
  }

  private static void fill(BreadcrumbStore store, int records, int threads) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int from = t;
        done.add(pool.submit(() -> {
          for (int i = from; i < records; i += threads) {
            store.create(BreadcrumbCreate.builder(i % 3 == 0 ? "knowledge.v1" : "user.message.v1", "record " + i)
                .context(RcrtJson.object().put("content", "text " + i)).build());
          }
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
  }

  private static void latency(String what, VectorSearch v, int records) {
    for (int i = 0; i < 50; i++) {
      v.nearest("warm " + i, 10, Selector.all());
    }
    int n = 300;
    long[] took = new long[n];
    for (int i = 0; i < n; i++) {
      String q = "query " + i; // the synthetic provider embeds in microseconds: this is the search
      long t0 = System.nanoTime();
      List<Breadcrumb> found = v.nearest(q, 10, Selector.all());
      took[i] = System.nanoTime() - t0;
      if (found.size() != 10) {
        throw new IllegalStateException(what + ": " + found.size() + " results");
      }
    }
    Arrays.sort(took);
    System.out.printf("%s, %d records, nn 10: median %.2f ms, p99 %.2f ms%n", what, records, took[n / 2] / 1e6, took[n * 99 / 100] / 1e6);
  }
}
