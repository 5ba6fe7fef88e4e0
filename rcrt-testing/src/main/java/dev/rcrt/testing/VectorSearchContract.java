package dev.rcrt.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.BreadcrumbUpdate;
import dev.rcrt.core.EmbeddingErrorCode;
import dev.rcrt.core.EmbeddingException;
import dev.rcrt.core.EmbeddingProvider;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Sensitivity;
import dev.rcrt.core.TtlType;
import dev.rcrt.core.VectorSearch;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every store that embeds its records must have: search by meaning over what was
 * written, versions honoured, failures of the embedding provider never losing a write. Extend it
 * and implement {@link #newStore(Clock, EmbeddingProvider)}; each test gets a fresh, empty store
 * embedding with a {@link TestEmbeddings} (words, not meaning) on a {@link TestClock}.
 *
 * <p>Waits are bounded by {@link #indexWait()} so that a broken store fails instead of hanging the
 * build; they are not speed assertions.
 */
public abstract class VectorSearchContract {
  /** Where each test's clock starts. */
  public static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

  /** The provider the store under test embeds with; tests inject its failures. */
  protected TestEmbeddings embeddings;
  /** The clock the store under test keeps time by. */
  protected TestClock clock;
  /** The store under test. */
  protected BreadcrumbStore store;

  /** A new, empty store telling time by {@code clock} and embedding with {@code provider} by RCRT's policy. */
  protected abstract BreadcrumbStore newStore(Clock clock, EmbeddingProvider provider);

  /** The longest a test waits for the index to catch up; default 30 s. */
  protected Duration indexWait() {
    return Duration.ofSeconds(30);
  }

  @BeforeEach
  void freshStore() {
    embeddings = new TestEmbeddings();
    clock = new TestClock(START);
    store = newStore(clock, embeddings);
  }

  private VectorSearch vectors() {
    return store.vectorSearch().orElseThrow(() -> new AssertionError("a store built with embeddings must offer vectorSearch()"));
  }

  private Breadcrumb write(String title, String schema, String text, String... tags) {
    return store.create(BreadcrumbCreate.builder(schema, title).tags(tags).context(RcrtJson.object().put("text", text)).build());
  }

  private void caughtUp() throws InterruptedException {
    assertThat(vectors().awaitIndexed(indexWait())).as("index caught up within " + indexWait()).isTrue();
  }

  private List<String> nearestIds(String query, int nn, Selector filter) {
    return vectors().nearest(query, nn, filter).stream().map(Breadcrumb::id).toList();
  }

  @Test
  public void findsTheRecordsThatShareTheQuerysWordsNearestFirst() throws Exception {
    Breadcrumb weather = write("weather", "document.v1", "rain and wind in the mountains tomorrow");
    Breadcrumb money = write("money", "document.v1", "convert euros to yen at the bank");
    Breadcrumb both = write("trip", "document.v1", "bank holiday trip to the mountains");
    caughtUp();

    assertThat(nearestIds("euros yen bank", 3, Selector.all())).first().isEqualTo(money.id());
    assertThat(nearestIds("wind rain mountains", 2, Selector.all())).containsExactly(weather.id(), both.id());
    assertThat(vectors().pending()).isZero();
  }

  @Test
  public void theFilterAppliesToSchemaTagsAndContext() throws Exception {
    write("a", "document.v1", "blue whales swim", "ocean");
    Breadcrumb note = write("b", "note.v1", "blue whales sing", "ocean");
    write("c", "note.v1", "blue whales dive", "sky");
    caughtUp();

    assertThat(nearestIds("blue whales", 5, Selector.schema("note.v1").withAllTags("ocean"))).containsExactly(note.id());
  }

  @Test
  public void anUpdatedRecordIsNeverAnsweredWithItsOldVector() throws Exception {
    Breadcrumb b = write("fruit", "document.v1", "apples pears plums");
    write("other", "document.v1", "tractors and harvest");
    caughtUp();
    // asked once before the model is held: the store caches the query's vector
    assertThat(nearestIds("apples pears plums", 1, Selector.all())).containsExactly(b.id());
    embeddings.hold(); // the new version cannot be embedded yet
    try {
      store.update(b.id(), 1, BreadcrumbUpdate.ofContext(RcrtJson.object().put("text", "engines pistons gears")));
      List<Breadcrumb> found = vectors().nearest("apples pears plums", 5, Selector.all());
      assertThat(found).extracting(Breadcrumb::id).doesNotContain(b.id());
    } finally {
      embeddings.release();
    }
    caughtUp();
    List<Breadcrumb> found = vectors().nearest("engines pistons gears", 1, Selector.all());
    assertThat(found).hasSize(1);
    assertThat(found.get(0).id()).isEqualTo(b.id());
    assertThat(found.get(0).version()).isEqualTo(2);
  }

  @Test
  public void aDeletedRecordIsNeverAnswered() throws Exception {
    Breadcrumb b = write("gone", "document.v1", "violins and cellos");
    caughtUp();
    assertThat(nearestIds("violins cellos", 1, Selector.all())).containsExactly(b.id());
    store.delete(b.id());
    assertThat(nearestIds("violins cellos", 1, Selector.all())).isEmpty();
  }

  @Test
  public void anExpiredRecordIsNotAnswered() throws Exception {
    Breadcrumb b =
        store.create(BreadcrumbCreate.builder("document.v1", "short").ttl(START.plusSeconds(60), TtlType.DATETIME, null)
            .context(RcrtJson.object().put("text", "comets and meteors")).build());
    caughtUp();
    assertThat(nearestIds("comets meteors", 1, Selector.all())).containsExactly(b.id());
    clock.advance(Duration.ofMinutes(2));
    assertThat(nearestIds("comets meteors", 1, Selector.all())).isEmpty();
  }

  @Test
  public void aWriteDoesNotWaitForTheModel() throws Exception {
    embeddings.hold();
    ExecutorService writer = Executors.newSingleThreadExecutor();
    try {
      CompletableFuture<Breadcrumb> written = CompletableFuture.supplyAsync(() -> write("fast", "document.v1", "lanterns"), writer);
      // the model is held: a write that waited for it would never finish
      Breadcrumb b = written.get(indexWait().toSeconds(), TimeUnit.SECONDS);
      assertThat(store.get(b.id())).isPresent();
      assertThat(vectors().awaitIndexed(Duration.ofMillis(50))).isFalse();
      assertThat(vectors().pending()).isPositive();
    } finally {
      embeddings.release();
      writer.shutdownNow();
    }
    caughtUp();
    assertThat(nearestIds("lanterns", 1, Selector.all())).hasSize(1);
  }

  @Test
  public void aFailingProviderLosesNoWriteAndTheRecordIsIndexedLater() throws Exception {
    embeddings.failWith(new EmbeddingException(EmbeddingErrorCode.EMBEDDING_UNAVAILABLE, "model endpoint down", null));
    Breadcrumb b = write("kept", "document.v1", "saxophones and trumpets");
    assertThat(store.get(b.id())).isPresent();
    assertThat(vectors().awaitIndexed(Duration.ofMillis(300))).isFalse();
    assertThat(vectors().pending()).isEqualTo(1);
    embeddings.recover();
    caughtUp();
    assertThat(nearestIds("saxophones trumpets", 1, Selector.all())).containsExactly(b.id());
  }

  @Test
  public void aTextTheModelRefusesIsLeftOutAndTheOthersAreIndexed() throws Exception {
    Breadcrumb good = write("good", "document.v1", "gardens with roses");
    write("bad", "document.v1", "poison gardens with roses");
    caughtUp();
    assertThat(nearestIds("gardens roses", 5, Selector.all())).contains(good.id()).hasSize(2);

    embeddings.refuse("poison");
    write("bad2", "document.v1", "poison roses");
    Breadcrumb other = write("good2", "document.v1", "roses in vases");
    caughtUp();
    assertThat(nearestIds("roses", 5, Selector.all())).contains(other.id()).hasSize(3);
  }

  @Test
  public void systemAndSecretRecordsAreNotEmbedded() throws Exception {
    write("metrics", "system.metrics.v1", "zebra");
    for (String lookalike : new String[] {"secret.v1", "secrets.v1", "secret.v2", "app.secret.v1", "credentials.v1"}) {
      store.create(BreadcrumbCreate.builder(lookalike, "key").context(RcrtJson.object().put("text", "zebra")).build());
    }
    store.create(BreadcrumbCreate.builder("document.v1", "pin").sensitivity(Sensitivity.SECRET)
        .context(RcrtJson.object().put("text", "zebra")).build());
    Breadcrumb open = write("open", "document.v1", "zebra");
    caughtUp();
    assertThat(nearestIds("zebra", 10, Selector.all())).containsExactly(open.id());
  }

  @Test
  public void aNarrowFilterStillFindsItsRecordsAmongManyOthers() throws Exception {
    for (int i = 0; i < 300; i++) {
      write("filler " + i, "document.v1", "otters otters river " + i);
    }
    Breadcrumb rare = write("rare", "rare.v1", "otters in a zoo");
    caughtUp();
    assertThat(nearestIds("otters river", 1, Selector.schema("rare.v1"))).containsExactly(rare.id());
    assertThat(nearestIds("otters river", 1, Selector.all().withAllTags())).hasSize(1);
  }

  @Test
  public void theProviderIsOffered() {
    assertThat(vectors().provider()).isPresent();
    assertThat(vectors().provider().get().dimensions()).isEqualTo(TestEmbeddings.DIMENSIONS);
  }

  @Test
  public void aHugeQueryOrRecordIsCutBeforeItReachesTheModel() throws Exception {
    String huge = "zebra ".repeat(200_000);
    Breadcrumb b = write("long", "document.v1", huge);
    caughtUp();
    assertThat(nearestIds(huge, 1, Selector.all())).containsExactly(b.id());
    assertThat(embeddings.longestText()).isLessThanOrEqualTo(dev.rcrt.core.EmbeddingPolicy.rcrt().maxChars());
  }
}
