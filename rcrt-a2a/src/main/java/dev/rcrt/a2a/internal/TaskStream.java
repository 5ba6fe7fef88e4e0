package dev.rcrt.a2a.internal;

import dev.rcrt.agent.Runs;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.TimeSource;
import io.a2a.spec.StreamingEventKind;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import java.util.concurrent.SubmissionPublisher;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task's A2A stream: the task (as submitted when the stream follows it from its first record, else
 * as it stands), then the events of each record its run writes ({@link RunTasks#events}), read
 * when the store reports a record of the run ({@link RunWatch}: nothing polls), until the task is
 * final or waits for input (the last event has {@code final: true}), the caller goes away (found at
 * the next record written, {@link #CALLER_GONE}), or {@code maxWait} passes on the runner's {@link
 * TimeSource} (the stream then ends without a final event; {@code tasks/resubscribe} or {@code
 * tasks/get} go on). Reading the records rather than this process's memory, it follows a run that
 * another process takes steps of. Subscribers' reads run on {@code executor}, one at a time per
 * subscriber; no thread waits with a stream.
 */
final class TaskStream implements Flow.Publisher<StreamingEventKind> {
  /**
   * The key under which a transport puts an {@code AtomicBoolean} in the call's state that it sets
   * when the caller goes away (the SDK's stream converter does not pass a cancel on).
   */
  static final String CALLER_GONE = "rcrt.a2a.caller_gone";

  private static final Logger LOG = LoggerFactory.getLogger(TaskStream.class);

  private final TaskRecords.Entry entry;
  private final BreadcrumbStore store;
  private final Runs runs;
  private final Executor executor;
  private final TimeSource time;
  private final Duration maxWait;
  private final int seen;
  private final AtomicBoolean gone;

  TaskStream(TaskRecords.Entry entry, BreadcrumbStore store, Runs runs, Executor executor, TimeSource time, Duration maxWait, int seen,
      AtomicBoolean gone) {
    this.entry = entry;
    this.store = store;
    this.runs = runs;
    this.executor = executor;
    this.time = time;
    this.maxWait = maxWait;
    this.seen = seen;
    this.gone = gone;
  }

  @Override
  public void subscribe(Flow.Subscriber<? super StreamingEventKind> subscriber) {
    SubmissionPublisher<StreamingEventKind> out = new SubmissionPublisher<>(Runnable::run, 256);
    out.subscribe(subscriber);
    new Follower(out).start();
  }

  /** One subscriber's stream: its position in the run's records, its watch and its deadline. */
  private final class Follower {
    private final SubmissionPublisher<StreamingEventKind> out;
    private int at = seen;
    private boolean ended; // guarded by this
    private @Nullable RunWatch watch; // guarded by this
    private TimeSource.@Nullable Timer deadline; // guarded by this

    Follower(SubmissionPublisher<StreamingEventKind> out) {
      this.out = out;
    }

    synchronized void start() {
      try {
        out.submit(RunTasks.task(entry, seen == 0 ? Optional.empty() : runs.show(entry.runId()))); // a new task starts as submitted
        watch = new RunWatch(store, entry.runId(), executor, this::step);
        deadline = time.schedule(maxWait, () -> executor.execute(() -> end(null)));
        watch.poke(); // what was written before the watch began
      } catch (RuntimeException e) {
        end(e);
      }
    }

    /** Sends the events of the records written since the last step; ends the stream once the task settled. */
    synchronized void step() {
      if (ended) {
        return;
      }
      if (!out.hasSubscribers() || gone.get()) {
        end(null);
        return;
      }
      try {
        RunTasks.Events events = RunTasks.events(entry, runs.show(entry.runId()), at);
        events.events().forEach(out::submit);
        at = events.seen();
        if (events.settled()) {
          end(null);
        }
      } catch (RuntimeException e) {
        end(e);
      }
    }

    /** Stops following and closes the stream; exceptionally when {@code failure} is not null. Idempotent. */
    synchronized void end(@Nullable Throwable failure) {
      if (ended) {
        return;
      }
      ended = true;
      if (watch != null) {
        watch.close();
      }
      if (deadline != null) {
        deadline.cancel();
      }
      if (failure == null) {
        out.close();
        return;
      }
      String ref = java.util.UUID.randomUUID().toString().substring(0, 8);
      LOG.warn("the A2A stream of task {} stopped (ref {})", entry.taskId(), ref, failure);
      out.closeExceptionally(new io.a2a.spec.InternalError("the task's stream stopped (ref " + ref + "; the server's log has the details);"
          + " tasks/get or tasks/resubscribe go on"));
    }
  }
}
