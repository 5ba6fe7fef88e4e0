package dev.rcrt.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.VectorSearch;
import dev.rcrt.embeddings.minilm.MiniLmEmbeddings;
import dev.rcrt.testing.MeaningSet;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Search by meaning on PostgreSQL, measured with RCRT's own model: 305 records of five schemas (the
 * 55 labelled topics of {@link MeaningSet} written as documents, notes, responses, and 250
 * generated distractors), each topic's question asked, and whether its record comes back, through
 * the index searched exactly and through its HNSW graph. Prints recall@1 and recall@5 for both and
 * the graph's recall@10 against exact search.
 */
class RetrievalQualityTest {
  private static final String[] SCHEMAS = {"knowledge.v1", "note.v1", "agent.response.v1", "tool.response.v1", "document.v1"};
  private static MiniLmEmbeddings minilm;
  private static PostgresBreadcrumbStore exact;
  private static PostgresBreadcrumbStore graph;
  private static final Map<String, String> RECORD_OF_TOOL = new HashMap<>();

  @BeforeAll
  static void write() throws Exception {
    minilm = MiniLmEmbeddings.create();
    String schema = TestPostgres.freshSchema();
    exact = PostgresBreadcrumbStore.builder(TestPostgres.dataSource()).schema(schema).embeddings(minilm)
        .exactVectorSearchBelow(Integer.MAX_VALUE).pollInterval(Duration.ofMillis(100)).build();
    graph = PostgresBreadcrumbStore.builder(TestPostgres.dataSource()).schema(schema).embeddings(minilm)
        .exactVectorSearchBelow(0).pollInterval(Duration.ofMillis(100)).build();
    int i = 0;
    for (MeaningSet.Topic t : MeaningSet.topics()) {
      Breadcrumb b = exact.create(BreadcrumbCreate.builder(SCHEMAS[i++ % SCHEMAS.length], t.tool().replace('_', ' '))
          .context(RcrtJson.object().put("text", t.description())).build());
      RECORD_OF_TOOL.put(t.tool(), b.id());
    }
    for (MeaningSet.Topic d : MeaningSet.distractors(250)) {
      exact.create(BreadcrumbCreate.builder(SCHEMAS[i++ % SCHEMAS.length], d.tool().replace('_', ' '))
          .context(RcrtJson.object().put("text", d.description())).build());
    }
    assertThat(vectors(exact).awaitIndexed(Duration.ofMinutes(2))).isTrue();
    assertThat(vectors(graph).awaitIndexed(Duration.ofMinutes(2))).isTrue();
  }

  @AfterAll
  static void close() {
    exact.close();
    graph.close();
    minilm.close();
  }

  private static VectorSearch vectors(PostgresBreadcrumbStore s) {
    return s.vectorSearch().orElseThrow();
  }

  private static double recall(PostgresBreadcrumbStore s, int k) {
    int found = 0;
    for (MeaningSet.Topic t : MeaningSet.topics()) {
      if (vectors(s).nearest(t.question(), k, Selector.all()).stream().anyMatch(b -> b.id().equals(RECORD_OF_TOOL.get(t.tool())))) {
        found++;
      }
    }
    return (double) found / MeaningSet.topics().size();
  }

  @Test
  void theLabelledRecordsAreFoundAndTheGraphAgreesWithExactSearch() {
    double exact1 = recall(exact, 1);
    double exact5 = recall(exact, 5);
    double graph1 = recall(graph, 1);
    double graph5 = recall(graph, 5);
    double overlap = 0;
    for (MeaningSet.Topic t : MeaningSet.topics()) {
      Set<String> truth = new HashSet<>();
      vectors(exact).nearest(t.question(), 10, Selector.all()).forEach(b -> truth.add(b.id()));
      overlap += vectors(graph).nearest(t.question(), 10, Selector.all()).stream().filter(b -> truth.contains(b.id())).count() / 10.0;
    }
    overlap /= MeaningSet.topics().size();
    System.out.printf(
        "retrieval, %d questions over %d records of %d schemas (MiniLM): recall@1 exact %.2f, HNSW %.2f; recall@5 exact %.2f, HNSW %.2f;"
            + " HNSW recall@10 against exact %.2f%n",
        MeaningSet.topics().size(), 305, SCHEMAS.length, exact1, graph1, exact5, graph5, overlap);
    assertThat(exact5).isGreaterThanOrEqualTo(0.8);
    assertThat(overlap).isGreaterThanOrEqualTo(0.95);
  }

  @Test
  void aSchemaFilterKeepsToItsRecords() {
    List<Breadcrumb> found = vectors(graph).nearest("How many yen is 20 euros?", 3, Selector.schema("note.v1"));
    assertThat(found).isNotEmpty().allSatisfy(b -> assertThat(b.schemaName()).isEqualTo("note.v1"));
  }
}
