package dev.rcrt.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbEvent;
import dev.rcrt.core.BreadcrumbUpdate;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.testing.RecordedEvents;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The wake-ups a writing process sends after its writes commit (one {@code NOTIFY} off the writes'
 * transactions): a reader in another process that would read the log only every ten minutes sees
 * every create, update and delete at once, and a process that writes and closes at once still
 * wakes it. The reader here is a store object with its own poll interval, so its own event reader
 * and listening session, as another process has.
 */
class WakeUpsTest {
  private static final Duration WITHIN = Duration.ofSeconds(60);
  /** The reader's poll: far past WITHIN, so what it sees in time came by a wake-up. */
  private static final Duration NEVER = Duration.ofMinutes(10);

  private static PostgresBreadcrumbStore open(String schema, Duration pollInterval) {
    return PostgresBreadcrumbStore.builder(TestPostgres.dataSource()).schema(schema).pollInterval(pollInterval).build();
  }

  @Test
  void everyWriteWakesAReaderThatWouldOtherwiseReadTheLogOnlyEveryTenMinutes() throws Exception {
    String schema = TestPostgres.freshSchema();
    try (PostgresBreadcrumbStore writer = open(schema, Duration.ofMillis(100)); PostgresBreadcrumbStore reader = open(schema, NEVER)) {
      RecordedEvents seen = new RecordedEvents();
      try (Subscription ignored = reader.subscribe(Selector.schema("note.v1"), seen)) {
        int count = 0;
        for (int i = 0; i < 5; i++) {
          Breadcrumb created = writer.create(BreadcrumbCreate.builder("note.v1", "n" + i).build());
          assertThat(seen.awaitCount(++count, WITHIN)).as("create %d seen", i).isTrue();
          writer.update(created.id(), 1, BreadcrumbUpdate.ofContext(RcrtJson.parse("{\"v\":2}")));
          assertThat(seen.awaitCount(++count, WITHIN)).as("update %d seen", i).isTrue();
          writer.delete(created.id());
          assertThat(seen.awaitCount(++count, WITHIN)).as("delete %d seen", i).isTrue();
        }
      }
      assertThat(seen.events()).extracting(BreadcrumbEvent::type).containsSequence(
          BreadcrumbEvent.Type.CREATED, BreadcrumbEvent.Type.UPDATED, BreadcrumbEvent.Type.DELETED);
    }
  }

  @Test
  void aProcessThatWritesAndClosesAtOnceStillWakesTheOthers() throws Exception {
    String schema = TestPostgres.freshSchema();
    try (PostgresBreadcrumbStore reader = open(schema, NEVER)) {
      RecordedEvents seen = new RecordedEvents();
      try (Subscription ignored = reader.subscribe(Selector.schema("note.v1"), seen)) {
        for (int i = 0; i < 20; i++) {
          // as a one-shot command does: open, write, close; the wake-up is sent by close if it was not yet
          try (PostgresBreadcrumbStore oneShot = open(schema, Duration.ofMillis(100 + i))) {
            oneShot.create(BreadcrumbCreate.builder("note.v1", "once-" + i).build());
          }
          assertThat(seen.awaitCount(i + 1, WITHIN)).as("the write of one-shot writer %d seen", i).isTrue();
        }
      }
    }
  }
}
