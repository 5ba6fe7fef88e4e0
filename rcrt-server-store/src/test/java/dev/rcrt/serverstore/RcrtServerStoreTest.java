package dev.rcrt.serverstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbEvent;
import dev.rcrt.core.BreadcrumbUpdate;
import dev.rcrt.core.Principal;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The gaps between RCRT's REST API and a store, each mapped, against {@link FakeRcrtServer}. */
class RcrtServerStoreTest {
  private static final String OWNER = "00000000-0000-0000-0000-000000000001";
  private static final String ME = "00000000-0000-0000-0000-0000000000b1";
  private static final String OTHER = "00000000-0000-0000-0000-0000000000c2";

  private FakeRcrtServer server;
  private final List<RcrtServerStore> stores = new java.util.ArrayList<>();

  private RcrtServerStore store(String agent) {
    RcrtServerStore s = RcrtServerStore.builder(server.baseUri().toString()).credentials(OWNER, agent, List.of("curator"))
        .reconnectDelay(Duration.ofMillis(50)).build();
    stores.add(s);
    return s;
  }

  @AfterEach
  void stop() {
    stores.forEach(RcrtServerStore::close);
    if (server != null) {
      server.close();
    }
  }

  private String raw(String pathAndQuery) throws Exception {
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(server.baseUri().resolve(pathAndQuery)).build(),
        HttpResponse.BodyHandlers.ofString());
    return r.body();
  }

  @Test
  void aHostIdIsKeptInAHiddenTagAndResolvesWhileTheServerAssignsItsOwnUuid() throws Exception {
    server = new FakeRcrtServer(Clock.systemUTC(), false, 1000);
    RcrtServerStore s = RcrtServerStore.builder(server.baseUri().toString()).build();
    stores.add(s);
    Breadcrumb made = s.create(BreadcrumbCreate.builder("note.v1", "n").id("my-note").tags("a").createdBy("tool:writer").build());
    assertThat(made.id()).isEqualTo("my-note");
    assertThat(made.tags()).containsExactly("a");
    assertThat(made.createdBy()).isEqualTo("tool:writer");
    String list = raw("/breadcrumbs?schema_name=note.v1");
    assertThat(list).contains("sdk:id:my-note").doesNotContain("\"id\":\"my-note\"");
    assertThat(s.get("my-note")).contains(made);
    assertThat(s.search(Selector.allTags("a"), 10, 0)).containsExactly(made);
    assertThat(s.update("my-note", 1, BreadcrumbUpdate.ofContext(RcrtJson.object().put("n", 2))).tags()).containsExactly("a");
    assertThat(s.delete("my-note")).isTrue();
    assertThat(s.get("my-note")).isEmpty();
  }

  @Test
  void anotherAgentsWriterClaimIsNotBelievedButOursIs() throws Exception {
    server = new FakeRcrtServer(Clock.systemUTC(), true, 1000);
    RcrtServerStore mine = store(ME);
    RcrtServerStore theirs = store(OTHER);
    Breadcrumb forged = theirs.create(BreadcrumbCreate.builder("tool.code.v1", "evil").createdBy("host").build());
    Breadcrumb own = mine.create(BreadcrumbCreate.builder("tool.code.v1", "good").build());
    assertThat(Principal.writerOf(mine.get(forged.id()).orElseThrow())).isEqualTo(Principal.ofWriter("user:" + OTHER));
    assertThat(Principal.writerOf(mine.get(own.id()).orElseThrow()).isHost()).isTrue();
  }

  @Test
  void anExpiredTokenIsFetchedAgainAndAMissingOneIsAClearError() throws Exception {
    server = new FakeRcrtServer(Clock.systemUTC(), true, 1000);
    RcrtServerStore s = store(ME);
    s.create(BreadcrumbCreate.builder("a.v1", "one").build());
    server.expireTokens();
    s.create(BreadcrumbCreate.builder("a.v1", "two").build());
    assertThat(server.calls.get("POST /auth/token").get()).isEqualTo(2);

    RcrtServerStore anonymous = RcrtServerStore.builder(server.baseUri().toString()).build();
    stores.add(anonymous);
    assertThatThrownBy(() -> anonymous.get("x"))
        .isInstanceOfSatisfying(RcrtServerException.class, e -> assertThat(e.code()).isEqualTo("store_unauthorized"))
        .hasMessageContaining("HTTP 401").hasMessageContaining("missing or invalid bearer token");
  }

  @Test
  void aServerThatCannotBeReachedIsStoreUnavailableNamingIt() {
    RcrtServerStore s = RcrtServerStore.builder("http://127.0.0.1:9").timeout(Duration.ofSeconds(2)).build();
    stores.add(s);
    assertThatThrownBy(() -> s.get("x"))
        .isInstanceOfSatisfying(RcrtServerException.class, e -> {
          assertThat(e.code()).isEqualTo("store_unavailable");
          assertThat(e.isRetriable()).isTrue();
        })
        .hasMessageContaining("http://127.0.0.1:9");
    assertThatThrownBy(() -> RcrtServerStore.builder("ftp://x")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("http://");
  }

  @Test
  void searchFiltersWhatTheServerCannotAcrossPagesAndCountsOnlyMatches() throws Exception {
    server = new FakeRcrtServer(Clock.systemUTC(), false, 1000);
    RcrtServerStore s = RcrtServerStore.builder(server.baseUri().toString()).build();
    stores.add(s);
    for (int i = 0; i < 450; i++) {
      s.create(BreadcrumbCreate.builder("item.v1", "i" + i).tags(i % 3 == 0 ? new String[] {"x", "y"} : new String[] {"x"})
          .context(RcrtJson.object().put("i", i)).build());
    }
    List<Breadcrumb> page = s.search(Selector.allTags("x", "y"), 20, 100);
    assertThat(page).hasSize(20);
    assertThat(page.get(0).context().get("i").asInt()).as("newest first: the 101st match of 150").isEqualTo(447 - 3 * 100);
    assertThat(s.search(Selector.allTags("x", "y"), 500, 0)).hasSize(150);
  }

  @Test
  void eventsArriveOnceDespiteDuplicatesAndPingsAndResumeAfterTheStreamDrops() throws Exception {
    server = new FakeRcrtServer(Clock.systemUTC(), false, 20);
    RcrtServerStore s = RcrtServerStore.builder(server.baseUri().toString()).reconnectDelay(Duration.ofMillis(50)).build();
    stores.add(s);
    BlockingQueue<BreadcrumbEvent> events = new LinkedBlockingQueue<>();
    try (Subscription sub = s.subscribe(Selector.schema("e.v1"), events::add)) {
      Breadcrumb b = s.create(BreadcrumbCreate.builder("e.v1", "first").build());
      s.update(b.id(), 1, BreadcrumbUpdate.ofContext(RcrtJson.object().put("n", 2)));
      assertThat(events.poll(5, TimeUnit.SECONDS).type()).isEqualTo(BreadcrumbEvent.Type.CREATED);
      BreadcrumbEvent updated = events.poll(5, TimeUnit.SECONDS);
      assertThat(updated.type()).isEqualTo(BreadcrumbEvent.Type.UPDATED);
      assertThat(updated.breadcrumb().context().get("n").asInt()).isEqualTo(2);
      assertThat(updated.breadcrumb().title()).isEqualTo("first");
      // every event is sent twice, in order: the next one seen after a sentinel is the sentinel itself
      s.create(BreadcrumbCreate.builder("e.v1", "sentinel").build());
      assertThat(events.poll(5, TimeUnit.SECONDS).breadcrumb().title()).isEqualTo("sentinel");
      // and the sentinel's own duplicate is dropped too: the next event is the one after it
      s.create(BreadcrumbCreate.builder("e.v1", "sentinel 2").build());
      assertThat(events.poll(5, TimeUnit.SECONDS).breadcrumb().title()).isEqualTo("sentinel 2");

      server.dropStreams();
      assertThat(server.awaitOpenStreams(1, Duration.ofSeconds(60))).as("the store opened its stream again").isTrue();
      s.create(BreadcrumbCreate.builder("e.v1", "after the drop").build());
      assertThat(events.poll(5, TimeUnit.SECONDS).breadcrumb().title()).isEqualTo("after the drop");
    }
  }

  @Test
  void vectorSearchAsksTheServerAndKeepsTheFilter() throws Exception {
    server = new FakeRcrtServer(Clock.systemUTC(), false, 1000);
    RcrtServerStore s = RcrtServerStore.builder(server.baseUri().toString()).build();
    stores.add(s);
    s.create(BreadcrumbCreate.builder("knowledge.v1", "How to create an agent").context(RcrtJson.object().put("text", "agents are records")).build());
    s.create(BreadcrumbCreate.builder("note.v1", "Agent shopping list").build());
    s.create(BreadcrumbCreate.builder("knowledge.v1", "Tides").build());
    List<Breadcrumb> found = s.vectorSearch().orElseThrow().nearest("create an agent", 5, Selector.schema("knowledge.v1"));
    assertThat(found).extracting(Breadcrumb::title).containsExactly("How to create an agent");
  }
}
