package dev.rcrt.benchmarks;

import dev.rcrt.core.Selector;
import dev.rcrt.core.internal.ExactVectorIndex;
import dev.rcrt.core.spi.VectorIndex;
import dev.rcrt.core.spi.Vectors;
import dev.rcrt.embeddings.minilm.MiniLmEmbeddings;
import dev.rcrt.postgres.internal.LuceneVectorIndex;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * The PostgreSQL store's in-process index (Lucene HNSW) against exact search, on real MiniLM
 * vectors: {@code N} generated sentences (subject, action, object, place, time: about 3 million
 * combinations) embedded in process, 200 other sentences as queries; recall@10 of the graph against
 * exact search over the same vectors, and both searches' median and p99. The index is the one each
 * process keeps, fed directly (the table's round trip is measured by {@code VectorSearchLoad}).
 * Run: {@code java -cp "rcrt-benchmarks/target/rcrt-benchmarks.jar:rcrt-benchmarks/target/lib/*"
 * dev.rcrt.benchmarks.HnswRecall [N]}.
 */
public final class HnswRecall {
  private static final String[] SUBJECTS = {"The customer", "Our driver", "A nurse", "The teacher", "My neighbour", "The bank", "A student",
    "The chef", "An engineer", "The mayor", "A tourist", "The farmer", "The pilot", "A lawyer", "The shop", "Grandma", "The team",
    "A reporter", "The landlord", "Our cat"};
  private static final String[] ACTIONS = {"asked about", "complained about", "paid for", "cancelled", "booked", "repaired", "lost",
    "found", "sold", "ordered", "painted", "cleaned", "delivered", "borrowed", "returned", "photographed", "measured", "insured",
    "translated", "forgot"};
  private static final String[] OBJECTS = {"a train ticket", "the invoice", "a birthday cake", "the roof", "a laptop", "the wedding venue",
    "a parking permit", "the garden fence", "a passport", "the heating bill", "a bicycle", "the concert seats", "a tax form",
    "the kitchen sink", "a violin", "the hotel room", "a pizza", "the car insurance", "a library book", "the electricity meter",
    "a flight to Rome", "the school trip", "a dentist appointment", "the boat engine", "a winter coat"};
  private static final String[] PLACES = {"in Oslo", "at the station", "near the harbour", "in the village", "at the office",
    "downtown", "at the market", "in the mountains", "by the river", "at the airport", "online", "at home"};
  private static final String[] TIMES = {"yesterday", "last week", "this morning", "on Friday", "in March", "at midnight", "twice",
    "again", "for the third time", "before lunch", "after the storm", "during the holidays"};

  private HnswRecall() {}

  private static String sentence(Random r) {
    return SUBJECTS[r.nextInt(SUBJECTS.length)] + " " + ACTIONS[r.nextInt(ACTIONS.length)] + " " + OBJECTS[r.nextInt(OBJECTS.length)]
        + " " + PLACES[r.nextInt(PLACES.length)] + " " + TIMES[r.nextInt(TIMES.length)] + ".";
  }

  public static void main(String[] args) {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
    Random r = new Random(1);
    ExactVectorIndex exact = new ExactVectorIndex();
    LuceneVectorIndex graph = new LuceneVectorIndex(0);
    List<float[]> queries = new ArrayList<>();
    List<float[]> vectors = new ArrayList<>(n);
    try (MiniLmEmbeddings minilm = MiniLmEmbeddings.create()) {
      long t0 = System.nanoTime();
      List<String> batch = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        batch.add(sentence(r));
        if (batch.size() == 32 || i == n - 1) {
          List<float[]> vs = minilm.embed(batch);
          for (int j = 0; j < vs.size(); j++) {
            int id = i - vs.size() + 1 + j;
            vectors.add(Vectors.unit(vs.get(j), minilm.model()));
          }
          batch.clear();
        }
      }
      System.out.printf("embedded %d sentences with MiniLM in %.0f s%n", n, (System.nanoTime() - t0) / 1e9);
      Random q = new Random(2);
      for (int i = 0; i < 200; i++) {
        queries.add(Vectors.unit(minilm.embed(List.of(sentence(q))).get(0), minilm.model()));
      }
    }
    for (int i = 0; i < n; i++) {
      exact.put(new VectorIndex.Entry("r" + i, 1, "document.v1", Set.of(), vectors.get(i)));
    }
    long t0 = System.nanoTime();
    // the graph is built from the same vectors, one at a time, as a process's feed builds it from the table
    for (int i = 0; i < n; i++) {
      graph.put(new VectorIndex.Entry("r" + i, 1, "document.v1", Set.of(), vectors.get(i)));
    }
    graph.nearest(queries.get(0), 10, Selector.all());
    System.out.printf("HNSW index of %d vectors built in %.1f s (one thread)%n", n, (System.nanoTime() - t0) / 1e9);
    double recall = 0;
    long[] g = new long[queries.size()];
    long[] e = new long[queries.size()];
    for (int round = 0; round < 2; round++) {
      for (int i = 0; i < queries.size(); i++) {
        float[] qv = queries.get(i);
        long s = System.nanoTime();
        List<VectorIndex.Hit> truth = exact.nearest(qv, 10, Selector.all());
        e[i] = System.nanoTime() - s;
        s = System.nanoTime();
        List<VectorIndex.Hit> found = graph.nearest(qv, 50, Selector.all());
        g[i] = System.nanoTime() - s;
        if (round == 1) {
          Set<String> ids = new HashSet<>();
          truth.forEach(h -> ids.add(h.id()));
          recall += found.subList(0, Math.min(10, found.size())).stream().filter(h -> ids.contains(h.id())).count() / 10.0;
        }
      }
    }
    Arrays.sort(g);
    Arrays.sort(e);
    int m = queries.size();
    System.out.printf("MiniLM vectors, %d: HNSW recall@10 against exact %.3f; HNSW median %.2f ms p99 %.2f ms; exact median %.2f ms p99 %.2f ms%n",
        n, recall / m, g[m / 2] / 1e6, g[m * 99 / 100] / 1e6, e[m / 2] / 1e6, e[m * 99 / 100] / 1e6);
  }
}
