package dev.rcrt.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbEvent;
import dev.rcrt.core.BreadcrumbUpdate;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Reads that do not parse a record twice, and never answer with a stale one: a row read again is
 * the record parsed the first time, while an update, and a deletion followed by a new record with
 * the same id and version, are read as what they are now. And tag searches that do not slow down as
 * writes pile up in a GIN index's pending list.
 */
class ParsedRecordsTest {
  private static PostgresBreadcrumbStore open(String schema) {
    return PostgresBreadcrumbStore.builder(TestPostgres.dataSource()).schema(schema).pollInterval(Duration.ofMillis(100)).build();
  }

  @Test
  void aRowReadAgainIsNotParsedAgainButEveryWriteIsReadAsItIsNow() throws Exception {
    try (PostgresBreadcrumbStore store = open(TestPostgres.freshSchema())) {
      BlockingQueue<BreadcrumbEvent> events = new LinkedBlockingQueue<>();
      List<String> seen = new ArrayList<>();
      try (Subscription ignored = store.subscribe(Selector.schema("note.v1"), events::add)) {
        Breadcrumb created = store.create(BreadcrumbCreate.builder("note.v1", "note").id("n-1").tags(List.of("k:1"))
            .context(RcrtJson.parse("{\"v\":1}")).build());
        Breadcrumb first = store.search(Selector.allTags("k:1"), 10, 0).get(0);
        assertThat(store.search(Selector.allTags("k:1"), 10, 0).get(0)).as("the same row, parsed once").isSameAs(first);
        assertThat(store.get("n-1")).containsSame(first);

        store.update("n-1", 1, BreadcrumbUpdate.ofContext(RcrtJson.parse("{\"v\":2}")));
        assertThat(store.get("n-1").orElseThrow().context().path("v").asInt()).isEqualTo(2);
        assertThat(store.search(Selector.allTags("k:1"), 10, 0).get(0).context().path("v").asInt()).isEqualTo(2);

        // the same id and the same version again, with other content: what a key of id and version would confuse
        assertThat(store.delete("n-1")).isTrue();
        store.create(BreadcrumbCreate.builder("note.v1", "note again").id("n-1").tags(List.of("k:1"))
            .context(RcrtJson.parse("{\"v\":3}")).build());
        Breadcrumb again = store.get("n-1").orElseThrow();
        assertThat(again.version()).isEqualTo(created.version());
        assertThat(again.title()).isEqualTo("note again");
        assertThat(again.context().path("v").asInt()).isEqualTo(3);
        assertThat(store.search(Selector.allTags("k:1"), 10, 0)).singleElement()
            .satisfies(b -> assertThat(b.context().path("v").asInt()).isEqualTo(3));

        for (int i = 0; i < 4; i++) {
          BreadcrumbEvent e = events.poll(20, TimeUnit.SECONDS);
          assertThat(e).as("event %d", i + 1).isNotNull();
          seen.add(e.type() + " " + e.breadcrumb().title() + " " + e.breadcrumb().context().path("v").asInt());
        }
      }
      assertThat(seen).containsExactly("CREATED note 1", "UPDATED note 2", "DELETED note 2", "CREATED note again 3");
    }
  }

  @Test
  void aHugeRecordIsNotKeptParsed() throws Exception {
    try (PostgresBreadcrumbStore store = open(TestPostgres.freshSchema())) {
      // whoever may write the store decides how large a record is: a huge one is parsed again on every read, not kept
      store.create(BreadcrumbCreate.builder("note.v1", "huge").tags(List.of("k:huge"))
          .context(RcrtJson.object().put("text", "x".repeat(300 * 1024))).build());
      Breadcrumb first = store.search(Selector.allTags("k:huge"), 1, 0).get(0);
      assertThat(store.search(Selector.allTags("k:huge"), 1, 0).get(0)).isNotSameAs(first).isEqualTo(first);
    }
  }

  @Test
  void theTagsIndexKeepsNoPendingList() throws Exception {
    String schema = TestPostgres.freshSchema();
    try (PostgresBreadcrumbStore store = open(schema); Connection c = TestPostgres.dataSource().getConnection();
        Statement s = c.createStatement()) {
      store.create(BreadcrumbCreate.builder("note.v1", "n").tags(List.of("session:s")).build());
      // every search by tag would scan the whole pending list: 1.4 ms a session search in DurableTurnLoad after 2,000 turns
      try (ResultSet rs = s.executeQuery("SELECT c.reloptions::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
          + " WHERE n.nspname = '" + schema + "' AND c.relname = 'breadcrumbs_tags'")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).contains("fastupdate=off");
      }
    }
  }
}
