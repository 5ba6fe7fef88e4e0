package dev.rcrt.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbEvent;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RecordedEventsTest {
  private final InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().build();

  @Test
  void aWaitEndsWithTheEventItWaitsForWrittenOnAnotherThreadAndSeesEventsInOrder() throws Exception {
    RecordedEvents events = new RecordedEvents();
    CountDownLatch waiting = new CountDownLatch(1);
    try (Subscription ignored = store.subscribe(Selector.schema("note.v1"), events)) {
      CompletableFuture<Boolean> waited = CompletableFuture.supplyAsync(() -> {
        waiting.countDown();
        try {
          return events.await(seen -> seen.size() >= 3 && seen.get(2).type() == BreadcrumbEvent.Type.DELETED, Duration.ofSeconds(60));
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
      });
      assertThat(waiting.await(60, TimeUnit.SECONDS)).isTrue();
      String id = store.create(BreadcrumbCreate.builder("note.v1", "a").build()).id();
      store.create(BreadcrumbCreate.builder("note.v1", "b").build());
      store.delete(id);
      assertThat(waited.get(60, TimeUnit.SECONDS)).isTrue();
      assertThat(events.awaitCount(3, Duration.ofSeconds(60))).isTrue();
    }
    assertThat(events.titles()).containsExactly("a", "b", "a");
    assertThat(events.events()).extracting(BreadcrumbEvent::type)
        .containsExactly(BreadcrumbEvent.Type.CREATED, BreadcrumbEvent.Type.CREATED, BreadcrumbEvent.Type.DELETED);
  }

  @Test
  void aWaitForWhatNeverComesSaysSoOnceItsTimeHasPassed() throws Exception {
    RecordedEvents events = new RecordedEvents();
    try (Subscription ignored = store.subscribe(Selector.schema("note.v1"), events)) {
      store.create(BreadcrumbCreate.builder("other.v1", "not this one").build());
      long start = System.nanoTime();
      assertThat(events.awaitCount(1, Duration.ofMillis(200))).isFalse();
      assertThat(System.nanoTime() - start).as("it waited its time out").isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(200));
    }
    assertThat(events.events()).isEmpty();
  }
}
