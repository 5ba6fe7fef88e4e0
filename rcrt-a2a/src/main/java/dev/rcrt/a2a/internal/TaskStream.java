package dev.rcrt.a2a.internal;

import dev.rcrt.agent.Run;
import dev.rcrt.agent.Runs;
import dev.rcrt.core.spi.Throwables;
import io.a2a.spec.StreamingEventKind;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import java.util.concurrent.SubmissionPublisher;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task's A2A stream: the task (as submitted when the stream follows it from its first record, else
 * as it stands), then the events of each record its run writes
 * ({@link RunTasks#events}), read from the store every 20 to 250 ms, until the task is final or
 * waits for input (the last event has {@code final: true}), the caller goes away (found at the next
 * event written, {@link #CALLER_GONE}), or {@code
 * maxWait} passes (the stream then ends without a final event; {@code tasks/resubscribe} or {@code
 * tasks/get} go on). Reading the records rather than this process's memory, it follows a run that
 * another process takes steps of. Each subscriber gets its own reader on {@code executor}.
 */
final class TaskStream implements Flow.Publisher<StreamingEventKind> {
  /**
   * The key under which a transport puts an {@code AtomicBoolean} in the call's state that it sets
   * when the caller goes away (the SDK's stream converter does not pass a cancel on).
   */
  static final String CALLER_GONE = "rcrt.a2a.caller_gone";

  private static final Logger LOG = LoggerFactory.getLogger(TaskStream.class);

  private final TaskRecords.Entry entry;
  private final Runs runs;
  private final Executor executor;
  private final Duration maxWait;
  private final int seen;
  private final AtomicBoolean gone;

  TaskStream(TaskRecords.Entry entry, Runs runs, Executor executor, Duration maxWait, int seen, AtomicBoolean gone) {
    this.entry = entry;
    this.runs = runs;
    this.executor = executor;
    this.maxWait = maxWait;
    this.seen = seen;
    this.gone = gone;
  }

  @Override
  public void subscribe(Flow.Subscriber<? super StreamingEventKind> subscriber) {
    SubmissionPublisher<StreamingEventKind> out = new SubmissionPublisher<>(Runnable::run, 256);
    out.subscribe(subscriber);
    executor.execute(() -> follow(out));
  }

  private void follow(SubmissionPublisher<StreamingEventKind> out) {
    try {
      Optional<Run> run = runs.show(entry.runId());
      out.submit(RunTasks.task(entry, seen == 0 ? Optional.empty() : run)); // a new task starts as submitted; its steps follow
      int at = seen;
      Instant until = Instant.now().plus(maxWait);
      Duration pause = Duration.ofMillis(20);
      while (out.hasSubscribers() && !gone.get() && Instant.now().isBefore(until)) {
        RunTasks.Events events = RunTasks.events(entry, run, at);
        events.events().forEach(out::submit);
        if (events.settled()) {
          break;
        }
        pause = events.seen() > at ? Duration.ofMillis(20) : min(pause.multipliedBy(2), Duration.ofMillis(250));
        at = events.seen();
        RecordRequestHandler.pause(pause);
        run = runs.show(entry.runId());
      }
      out.close();
    } catch (Throwable t) {
      Throwables.rethrowIfFatal(t);
      String ref = java.util.UUID.randomUUID().toString().substring(0, 8);
      LOG.warn("the A2A stream of task {} stopped (ref {})", entry.taskId(), ref, t);
      out.closeExceptionally(new io.a2a.spec.InternalError("the task's stream stopped (ref " + ref + "; the server's log has the details);"
          + " tasks/get or tasks/resubscribe go on"));
    }
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
