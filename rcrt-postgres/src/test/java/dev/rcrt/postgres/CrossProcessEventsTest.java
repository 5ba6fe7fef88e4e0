package dev.rcrt.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbEvent;
import dev.rcrt.core.RcrtException;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.testing.RecordedEvents;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Two store objects on one schema stand for two processes: what one writes, the other's
 * subscribers see, once each, in commit order, even when the database ends their sessions.
 */
class CrossProcessEventsTest {
  private static final Duration WITHIN = Duration.ofSeconds(60);

  private static PostgresBreadcrumbStore open(String schema) {
    return PostgresBreadcrumbStore.builder(TestPostgres.dataSource()).schema(schema).pollInterval(Duration.ofMillis(200)).build();
  }

  @Test
  void aSubscriberWhoseBackendIsTerminatedCatchesUpAndSeesEveryEventExactlyOnce() throws Exception {
    String schema = TestPostgres.freshSchema();
    try (PostgresBreadcrumbStore writer = open(schema); PostgresBreadcrumbStore reader = open(schema)) {
      RecordedEvents seen = new RecordedEvents();
      try (Subscription ignored = reader.subscribe(Selector.schema("note.v1"), seen)) {
        for (int i = 0; i < 200; i++) {
          if (i == 60 || i == 130) {
            // the reader has delivered everything written so far, the second time after its reconnection: it is reading
            assertThat(seen.awaitCount(i, WITHIN)).as("the reader delivered the first %d events", i).isTrue();
            assertThat(TestPostgres.terminateOtherBackends(TestPostgres.dataSource())).as("sessions ended, the listener's among them").isPositive();
          }
          createRetrying(writer, "n" + i);
        }
        createRetrying(writer, "sentinel");
        assertThat(seen.await(events -> events.stream().anyMatch(e -> e.breadcrumb().title().equals("sentinel")), WITHIN)).isTrue();
      }
      // events arrive in commit order: a duplicate of any of the 200 would have come before the sentinel
      assertThat(seen.titles()).containsExactlyElementsOf(IntStream.rangeClosed(0, 200).mapToObj(i -> i < 200 ? "n" + i : "sentinel").toList());
      assertThat(seen.events()).allMatch(e -> e.type() == BreadcrumbEvent.Type.CREATED);
    }
  }

  @Test
  void aWriteInOneProcessReachesTheOthersSearchAndSubscribersUpdatesAndDeletesIncluded() throws Exception {
    String schema = TestPostgres.freshSchema();
    try (PostgresBreadcrumbStore one = open(schema); PostgresBreadcrumbStore other = open(schema)) {
      RecordedEvents seen = new RecordedEvents();
      try (Subscription ignored = other.subscribe(Selector.allTags("shared"), seen)) {
        var created = one.create(BreadcrumbCreate.builder("note.v1", "hello").tags("shared").build());
        var updated = one.update(created.id(), 1, dev.rcrt.core.BreadcrumbUpdate.ofContext(dev.rcrt.core.RcrtJson.parse("{\"v\":2}")));
        assertThat(other.get(created.id())).contains(updated);
        one.delete(created.id());
        assertThat(seen.awaitCount(3, WITHIN)).isTrue();
      }
      assertThat(seen.events()).extracting(BreadcrumbEvent::type)
          .containsExactly(BreadcrumbEvent.Type.CREATED, BreadcrumbEvent.Type.UPDATED, BreadcrumbEvent.Type.DELETED);
      assertThat(seen.events().get(1).breadcrumb().version()).isEqualTo(2);
    }
  }

  @Test
  void storeObjectsOfOneProcessShareOneEventReaderWhichTheLastToCloseStops() throws Exception {
    String schema = TestPostgres.freshSchema();
    PostgresBreadcrumbStore first = open(schema);
    PostgresBreadcrumbStore second = open(schema);
    java.util.concurrent.BlockingQueue<String> firstSaw = new java.util.concurrent.LinkedBlockingQueue<>();
    java.util.concurrent.BlockingQueue<String> secondSaw = new java.util.concurrent.LinkedBlockingQueue<>();
    first.subscribe(Selector.schema("note.v1"), e -> firstSaw.add(e.breadcrumb().title()));
    second.subscribe(Selector.schema("note.v1"), e -> secondSaw.add(e.breadcrumb().title()));
    first.create(BreadcrumbCreate.builder("note.v1", "one").build());
    assertThat(firstSaw.poll(20, TimeUnit.SECONDS)).isEqualTo("one");
    assertThat(secondSaw.poll(20, TimeUnit.SECONDS)).isEqualTo("one");
    List<Thread> readers = readers(schema);
    assertThat(readers).as("one event reader for both store objects").hasSize(1);

    first.close(); // its subscription ends with it; the reader goes on for the other store object
    second.create(BreadcrumbCreate.builder("note.v1", "two").build());
    assertThat(secondSaw.poll(20, TimeUnit.SECONDS)).isEqualTo("two");
    assertThat(firstSaw).isEmpty();
    assertThat(readers(schema)).isEqualTo(readers);

    second.close();
    readers.get(0).join(TimeUnit.SECONDS.toMillis(20));
    assertThat(readers.get(0).isAlive()).as("the last store object to close stops the reader").isFalse();
  }

  /** The event reader threads of {@code schema} in this JVM. */
  private static List<Thread> readers(String schema) {
    return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals("rcrt-postgres-events-" + schema)).toList();
  }

  /** A write whose connection the test just ended is retried, as a host would on store_unavailable. */
  private static void createRetrying(PostgresBreadcrumbStore store, String title) {
    for (int attempt = 0; ; attempt++) {
      try {
        store.create(BreadcrumbCreate.builder("note.v1", title).idempotencyKey(title).build());
        return;
      } catch (RcrtException e) {
        if (!e.isRetriable() || attempt > 5) {
          throw e;
        }
      }
    }
  }
}
