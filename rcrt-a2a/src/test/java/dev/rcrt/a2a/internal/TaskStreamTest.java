package dev.rcrt.a2a.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.agent.Runs;
import dev.rcrt.core.InMemoryBreadcrumbStore;
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

/** A task's stream stops following the task when its caller has gone, not at its time limit. */
class TaskStreamTest {
  private final InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().build();
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

  @Test
  void theStreamEndsSoonAfterItsCallerGoesAway() throws Exception {
    AtomicBoolean gone = new AtomicBoolean();
    CompletableFuture<List<StreamingEventKind>> ended = follow(new TaskStream(quietTask(), new Runs(store), pool, Duration.ofSeconds(60), 0, gone));
    Thread.sleep(300);
    assertThat(ended).isNotDone();
    gone.set(true);
    List<StreamingEventKind> events = ended.get(5, TimeUnit.SECONDS);
    assertThat(events).singleElement().isInstanceOfSatisfying(Task.class, t -> assertThat(t.getStatus().state()).isEqualTo(TaskState.SUBMITTED));
  }

  @Test
  void withoutACallerGoingTheStreamFollowsUntilItsLimit() throws Exception {
    CompletableFuture<List<StreamingEventKind>> ended =
        follow(new TaskStream(quietTask(), new Runs(store), pool, Duration.ofSeconds(1), 0, new AtomicBoolean()));
    Thread.sleep(500);
    assertThat(ended).isNotDone();
    assertThat(ended.get(5, TimeUnit.SECONDS)).hasSize(1);
  }
}
