package dev.rcrt.a2a.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.agent.Runs;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.testing.TestClock;
import io.a2a.spec.Message;
import io.a2a.spec.StreamingEventKind;
import io.a2a.spec.Task;
import io.a2a.spec.TaskState;
import io.a2a.spec.TextPart;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A task's stream follows its run's records without polling, and stops when its caller has gone or at its limit on the runner's clock. */
class TaskStreamTest {
  private final TestClock clock = new TestClock();
  private final InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().clock(clock).build();
  private final ExecutorService pool = Executors.newSingleThreadExecutor();

  @AfterEach
  void tearDown() {
    pool.shutdownNow();
  }

  /** A task whose run never records anything: its stream would follow it until the limit. */
  private TaskRecords.Entry quietTask() {
    String taskId = UUID.randomUUID().toString();
    Message first = new Message.Builder().role(Message.Role.USER).parts(List.of(new TextPart("hi"))).messageId("m").build();
    return new TaskRecords(store).create(taskId, "c", "default-chat-assistant", UUID.randomUUID().toString(), "nothing", first);
  }

  private CompletableFuture<List<StreamingEventKind>> follow(TaskStream stream) {
    CompletableFuture<List<StreamingEventKind>> ended = new CompletableFuture<>();
    List<StreamingEventKind> seen = new CopyOnWriteArrayList<>();
    stream.subscribe(new Flow.Subscriber<>() {
      @Override
      public void onSubscribe(Flow.Subscription s) {
        s.request(Long.MAX_VALUE);
      }

      @Override
      public void onNext(StreamingEventKind item) {
        seen.add(item);
      }

      @Override
      public void onError(Throwable t) {
        ended.completeExceptionally(t);
      }

      @Override
      public void onComplete() {
        ended.complete(seen);
      }
    });
    return ended;
  }

  /** A record of run {@code runId}: any record a run writes moves its followers on. */
  private void recordOf(TaskRecords.Entry task) {
    store.create(BreadcrumbCreate.builder("note.v1", "a step").tags("run:" + task.runId()).build());
  }

  @Test
  void theStreamEndsAtTheNextRecordAfterItsCallerWentAway() throws Exception {
    AtomicBoolean gone = new AtomicBoolean();
    TaskRecords.Entry task = quietTask();
    CompletableFuture<List<StreamingEventKind>> ended =
        follow(new TaskStream(task, store, new Runs(store), pool, clock, Duration.ofSeconds(60), 0, gone));
    recordOf(task);
    assertThat(ended).as("the caller is still there").isNotDone();
    gone.set(true);
    recordOf(task);
    List<StreamingEventKind> events = ended.get(30, TimeUnit.SECONDS);
    assertThat(events).singleElement().isInstanceOfSatisfying(Task.class, t -> assertThat(t.getStatus().state()).isEqualTo(TaskState.SUBMITTED));
    assertThat(clock.pendingTimers()).as("its deadline is cancelled").isZero();
  }

  @Test
  void withoutACallerGoingTheStreamFollowsUntilItsLimitOnTheRunnersClock() throws Exception {
    CompletableFuture<List<StreamingEventKind>> ended =
        follow(new TaskStream(quietTask(), store, new Runs(store), pool, clock, Duration.ofSeconds(60), 0, new AtomicBoolean()));
    clock.advance(Duration.ofSeconds(59));
    assertThat(ended).isNotDone();
    clock.advance(Duration.ofSeconds(1));
    assertThat(ended.get(30, TimeUnit.SECONDS)).hasSize(1);
  }
}
