package dev.rcrt.a2a.internal;

import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows one run's records as the store's events report them, so that nothing polls: it
 * subscribes to the records tagged {@code run:<runId>} (every record a run writes: rounds, tool
 * requests and responses, approval decisions, the answer), and after each one written, by this
 * process or another on the same store, runs {@code changed} on {@code executor}. Calls are
 * coalesced: one runs at a time, and the records written while it runs bring exactly one more, so
 * a follower reads the run once per burst and never misses its last state.
 *
 * <p>Subscribes in the constructor; {@link #poke()} runs {@code changed} once without an event (a
 * follower's first look, after subscribing, so nothing falls between). Thread-safe; {@link
 * #close()} unsubscribes, after which nothing more is run.
 */
public final class RunWatch implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RunWatch.class);

  private final String runId;
  private final Executor executor;
  private final Runnable changed;
  private final AtomicInteger pending = new AtomicInteger();
  private final Subscription subscription;
  private volatile boolean closed;

  /**
   * @param changed what to do after the run changed; it handles its own failures (what escapes is
   *     logged, and the next record brings the next call)
   */
  public RunWatch(BreadcrumbStore store, String runId, Executor executor, Runnable changed) {
    this.runId = runId;
    this.executor = executor;
    this.changed = changed;
    this.subscription = store.subscribe(Selector.allTags("run:" + runId), event -> poke());
  }

  /** Runs {@code changed} once more, now or after the call under way. */
  public void poke() {
    if (!closed && pending.getAndIncrement() == 0) {
      try {
        executor.execute(this::drain);
      } catch (RejectedExecutionException e) {
        pending.set(0); // the server is stopping: its followers end with it
      }
    }
  }

  private void drain() {
    int seen;
    do {
      seen = pending.get();
      if (closed) {
        return;
      }
      try {
        changed.run();
      } catch (RuntimeException e) {
        LOG.warn("following run '{}' failed once; the next record written tries again", runId, e);
      }
    } while (pending.addAndGet(-seen) > 0);
  }

  @Override
  public void close() {
    closed = true;
    subscription.close();
  }
}
