package dev.rcrt.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbUpdate;
import dev.rcrt.core.EmbeddingErrorCode;
import dev.rcrt.core.EmbeddingException;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.VectorSearch;
import dev.rcrt.testing.TestEmbeddings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The vectors in the table are the fleet's: each store's index reads what the others wrote, rebuilds from it, and sweeps up what a stopped writer left. */
class SharedVectorsTest {
  private final String schema = TestPostgres.freshSchema();
  private final List<PostgresBreadcrumbStore> opened = new ArrayList<>();

  private PostgresBreadcrumbStore open(TestEmbeddings provider) {
    PostgresBreadcrumbStore s = PostgresBreadcrumbStore.builder(TestPostgres.dataSource())
        .schema(schema).pollInterval(Duration.ofMillis(100)).embeddings(provider).build();
    opened.add(s);
    return s;
  }

  @AfterEach
  void close() {
    opened.forEach(PostgresBreadcrumbStore::close);
  }

  private static Breadcrumb write(PostgresBreadcrumbStore s, String text) {
    return s.create(BreadcrumbCreate.builder("document.v1", text).context(RcrtJson.object().put("text", text)).build());
  }

  private static VectorSearch vectors(PostgresBreadcrumbStore s) {
    return s.vectorSearch().orElseThrow();
  }

  @Test
  void oneProcessEmbedsAndEveryProcessFindsIt() throws Exception {
    TestEmbeddings writerModel = new TestEmbeddings();
    TestEmbeddings readerModel = new TestEmbeddings();
    PostgresBreadcrumbStore writer = open(writerModel);
    PostgresBreadcrumbStore reader = open(readerModel);
    Breadcrumb b = write(writer, "glaciers and fjords");
    assertThat(vectors(writer).awaitIndexed(Duration.ofSeconds(30))).isTrue();
    assertThat(vectors(reader).awaitIndexed(Duration.ofSeconds(30))).isTrue();

    assertThat(vectors(reader).nearest("glaciers fjords", 1, Selector.all())).extracting(Breadcrumb::id).containsExactly(b.id());
    int readerCalls = readerModel.calls();

    // an update through the writer: the reader never answers with the old vector, and finds the new one
    writer.update(b.id(), 1, BreadcrumbUpdate.ofContext(RcrtJson.object().put("text", "deserts and dunes")));
    assertThat(vectors(writer).awaitIndexed(Duration.ofSeconds(30))).isTrue();
    assertThat(vectors(reader).awaitIndexed(Duration.ofSeconds(30))).isTrue();
    List<Breadcrumb> found = vectors(reader).nearest("deserts dunes", 1, Selector.all());
    assertThat(found).extracting(Breadcrumb::version).containsExactly(2L);
    // the reader embedded queries only, never the record
    assertThat(readerModel.calls() - readerCalls).isEqualTo(1);
  }

  @Test
  void aStoreBuiltLaterRebuildsItsIndexFromTheTableWithoutEmbeddingAgain() throws Exception {
    PostgresBreadcrumbStore first = open(new TestEmbeddings());
    Breadcrumb b = write(first, "lighthouses on cliffs");
    assertThat(vectors(first).awaitIndexed(Duration.ofSeconds(30))).isTrue();
    first.close();

    TestEmbeddings later = new TestEmbeddings();
    PostgresBreadcrumbStore second = open(later);
    assertThat(vectors(second).awaitIndexed(Duration.ofSeconds(30))).isTrue();
    assertThat(vectors(second).nearest("lighthouses cliffs", 1, Selector.all())).extracting(Breadcrumb::id).containsExactly(b.id());
    assertThat(later.calls()).as("only the query was embedded").isEqualTo(1);
  }

  @Test
  void recordsAWriterCouldNotEmbedBeforeItStoppedAreEmbeddedByTheNextStore() throws Exception {
    TestEmbeddings down = new TestEmbeddings();
    down.failWith(new EmbeddingException(EmbeddingErrorCode.EMBEDDING_UNAVAILABLE, "down", null));
    PostgresBreadcrumbStore first = open(down);
    Breadcrumb b = write(first, "orchards in blossom");
    first.close(); // stops with the record unembedded

    PostgresBreadcrumbStore second = open(new TestEmbeddings());
    // the wait covers what the second store's start found without a vector
    assertThat(vectors(second).awaitIndexed(Duration.ofSeconds(30))).isTrue();
    assertThat(vectors(second).nearest("orchards blossom", 1, Selector.schema("document.v1"))).extracting(Breadcrumb::id)
        .containsExactly(b.id());
  }

  @Test
  void theFirstSearchOfANewProcessAnswersFromTheWholeTableWithoutBeingToldToWait() throws Exception {
    // a host that calls nearest() straight away, as its first use of the store, gets what the fleet embedded
    PostgresBreadcrumbStore first = open(new TestEmbeddings());
    Breadcrumb b = write(first, "orchards in blossom");
    assertThat(vectors(first).awaitIndexed(Duration.ofSeconds(30))).isTrue();

    PostgresBreadcrumbStore second = open(new TestEmbeddings());
    assertThat(vectors(second).nearest("orchards blossom", 1, Selector.schema("document.v1"))).extracting(Breadcrumb::id)
        .containsExactly(b.id());
  }

  @Test
  void vectorsOfWideModelsAreIndexed() throws Exception {
    PostgresBreadcrumbStore s = PostgresBreadcrumbStore.builder(TestPostgres.dataSource())
        .schema(TestPostgres.freshSchema()).pollInterval(Duration.ofMillis(100)).exactVectorSearchBelow(0)
        .embeddings(new Wide()).build();
    opened.add(s);
    Breadcrumb b = write(s, "wide vectors");
    assertThat(vectors(s).awaitIndexed(Duration.ofSeconds(30))).isTrue();
    assertThat(vectors(s).nearest("wide vectors", 1, Selector.all())).extracting(Breadcrumb::id).containsExactly(b.id());
  }

  /** 1,536 dimensions, as OpenAI's text-embedding-3-small: past Lucene's default limit of 1,024. */
  private static final class Wide implements dev.rcrt.core.EmbeddingProvider {
    @Override
    public String model() {
      return "wide";
    }

    @Override
    public int dimensions() {
      return 1536;
    }

    @Override
    public List<float[]> embed(List<String> texts) {
      List<float[]> out = new ArrayList<>();
      for (String t : texts) {
        float[] v = new float[1536];
        float[] small = TestEmbeddings.vector(t);
        System.arraycopy(small, 0, v, 1000, small.length);
        out.add(v);
      }
      return out;
    }
  }
}
