package dev.rcrt.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.EmbeddingErrorCode;
import dev.rcrt.core.EmbeddingException;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.VectorSearch;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The first search by meaning of a store that embeds on demand (the command line's, so that a
 * process that never searches never runs the model): it waits for what was written before it, but
 * not for a provider that is down.
 */
class FirstSearchTest {
  private final TestEmbeddings embeddings = new TestEmbeddings();
  private final InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().embeddings(embeddings).embedOnDemand(true).build();

  private Breadcrumb write(String text) {
    return store.create(BreadcrumbCreate.builder("document.v1", text).context(RcrtJson.object().put("text", text)).build());
  }

  private VectorSearch vectors() {
    return store.vectorSearch().orElseThrow();
  }

  @Test
  void theFirstSearchAnswersFromEveryRecordWrittenBeforeIt() {
    Breadcrumb saxophones = write("saxophones and trumpets");
    write("orchards in blossom");
    assertThat(embeddings.calls()).as("nothing is embedded before the first search").isZero();
    assertThat(vectors().nearest("saxophones trumpets", 1, Selector.all())).extracting(Breadcrumb::id).containsExactly(saxophones.id());
  }

  @Test
  void theFirstSearchWithItsProviderDownFailsAtOnceInsteadOfWaitingOutTheRetries() {
    // before: it waited the whole first wait (2 minutes) for records the provider could not embed, then failed on its query
    embeddings.failWith(new EmbeddingException(EmbeddingErrorCode.EMBEDDING_UNAVAILABLE, "model endpoint down", null));
    write("saxophones and trumpets");
    assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        assertThatThrownBy(() -> vectors().nearest("saxophones", 1, Selector.all())).isInstanceOf(EmbeddingException.class)
            .hasMessageContaining("model endpoint down"));
    assertThat(vectors().pending()).as("the record still waits to be embedded").isEqualTo(1);
  }
}
