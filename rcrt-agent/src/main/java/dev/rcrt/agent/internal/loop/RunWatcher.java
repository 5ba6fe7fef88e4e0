package dev.rcrt.agent.internal.loop;

import dev.rcrt.agent.AgentException;
import dev.rcrt.agent.AgentResponse;
import dev.rcrt.agent.Run;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbEvent;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.core.TimeSource;
import dev.rcrt.core.spi.Throwables;
import dev.rcrt.tools.ApprovalDecision;
import dev.rcrt.tools.ToolResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes waiting runs up again without a thread waiting for them: subscribed to the records that
 * move a run on ({@code tool.response.v1}, {@code approval.decision.v1}) and to answers, it resumes
 * a run on the executor's turn threads when one arrives, and at the time a waiting run asked to be
 * looked at again (an approval's expiry, a response timeout, the deadline, or a lease another
 * process held). Callers waiting for an answer get a future completed by the answer's record,
 * whichever process writes it. In fleet mode ({@link #fleet}) it takes up any run of its agent,
 * not only those this process started. Subscribes on first use. Thread-safe.
 */
public final class RunWatcher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RunWatcher.class);

  private final TurnLoop loop;
  private final LoopSettings settings;
  private final BreadcrumbStore store;
  /** The message of each run looked at again later that may have recorded nothing yet, by run id. */
  private final Map<String, String> triggers = new ConcurrentHashMap<>();

  private final Map<String, CompletableFuture<Breadcrumb>> awaited = new ConcurrentHashMap<>();
  /** Runs with a continuation queued or running here; a second request while one runs sets the flag to run once more. */
  private final Map<String, Boolean> inFlight = new ConcurrentHashMap<>();
  private final Set<TimeSource.Timer> timers = ConcurrentHashMap.newKeySet();
  private final List<Subscription> subscriptions = new ArrayList<>();
  private volatile boolean fleet;
  private volatile boolean closed;

  public RunWatcher(TurnLoop loop, LoopSettings settings) {
    this.loop = loop;
    this.settings = settings;
    this.store = settings.runner().store();
  }

  /**
   * The answer of run {@code runId}, when its record is written (by this process or another).
   * Subscribes before looking, so an answer written meanwhile is not missed.
   */
  public CompletableFuture<Breadcrumb> answerOf(String runId) {
    subscribe();
    CompletableFuture<Breadcrumb> answer = awaited.computeIfAbsent(runId, id -> new CompletableFuture<>());
    answer.whenComplete((a, e) -> awaited.remove(runId, answer));
    Breadcrumb known = RunRecords.load(store, settings.runner().policy(), runId, loop.agent().agentId()).answer;
    if (known != null) {
      answer.complete(known);
    }
    return answer;
  }

  /** Also takes up runs of this agent that other processes started or left (runner mode). */
  public void fleet() {
    fleet = true;
    subscribe();
  }

  /**
   * {@link #progressed(TurnLoop.Progress)} for the run answering {@code trigger}: until the run
   * has recorded a round it is found by its message, not by its id, so a later look (after its
   * holder died before recording anything) takes it up from {@code trigger}.
   */
  public void progressed(TurnLoop.Progress p, Breadcrumb trigger) {
    if (p.answer() == null && p.status() == Run.Status.RUNNING) {
      triggers.put(p.runId(), trigger.id());
    }
    progressed(p);
  }

  /** Acts on where a run stands after steps taken here: looks again when it asked to, or when another holder's lease may run out. */
  public void progressed(TurnLoop.Progress p) {
    if (p.answer() != null || p.status() != Run.Status.RUNNING) {
      triggers.remove(p.runId());
    }
    if (p.answer() != null) {
      CompletableFuture<Breadcrumb> waiting = awaited.get(p.runId());
      if (waiting != null) {
        waiting.complete(p.answer());
      }
      return;
    }
    if (p.status() == Run.Status.RUNNING && p.wakeAt() == null) {
      later(p.runId(), settings.runLease()); // its holder may die: look again when its lease could have run out
    } else if (p.wakeAt() != null) {
      Duration in = Duration.between(settings.clock().instant(), p.wakeAt());
      later(p.runId(), in.isNegative() ? Duration.ZERO : in);
    }
  }

  private synchronized void subscribe() {
    if (!subscriptions.isEmpty() || closed) {
      return;
    }
    subscriptions.add(store.subscribe(Selector.schema(ToolResponse.SCHEMA), this::onRecord));
    subscriptions.add(store.subscribe(Selector.schema(ApprovalDecision.SCHEMA), this::onRecord));
    subscriptions.add(store.subscribe(Selector.schema(AgentResponse.SCHEMA).withAllTags("agent:response"), this::onAnswer));
  }

  private void onRecord(BreadcrumbEvent event) {
    if (event.type() != BreadcrumbEvent.Type.CREATED) {
      return;
    }
    Optional<String> run = event.breadcrumb().tagValue("run:");
    if (run.isPresent() && (fleet || awaited.containsKey(run.get()))) {
      resume(run.get());
    }
  }

  private void onAnswer(BreadcrumbEvent event) {
    Optional<String> run = event.breadcrumb().tagValue("run:");
    if (event.type() == BreadcrumbEvent.Type.CREATED && run.isPresent()) {
      CompletableFuture<Breadcrumb> waiting = awaited.get(run.get());
      if (waiting != null) {
        waiting.complete(event.breadcrumb());
      }
    }
  }

  /**
   * Marks the run answering {@code trigger} as having its steps taken on the calling thread, as
   * {@link #resume} marks a run it continues: false when this executor already takes that run's
   * steps, which then look at the run once more when they end (so that a record arriving meanwhile,
   * such as a decision, is not left to a lease's end). Pair a true with {@link #leave}.
   */
  public boolean enter(String runId, Breadcrumb trigger) {
    if (inFlight.putIfAbsent(runId, false) == null) {
      return true;
    }
    triggers.putIfAbsent(runId, trigger.id());
    inFlight.computeIfPresent(runId, (id, again) -> true);
    return false;
  }

  /** Ends what {@link #enter} began; the run is continued when something asked for it meanwhile. */
  public void leave(String runId) {
    if (Boolean.TRUE.equals(inFlight.remove(runId))) {
      resume(runId);
    }
  }

  /** Continues run {@code runId} on a turn thread; a request while one is under way runs it once more after. */
  public void resume(String runId) {
    if (closed || inFlight.putIfAbsent(runId, false) != null) {
      inFlight.computeIfPresent(runId, (id, again) -> true);
      return;
    }
    try {
      settings.threads().turn(() -> {
        continueRun(runId);
        return null;
      });
    } catch (AgentException busy) {
      inFlight.remove(runId);
      later(runId, Duration.ofSeconds(1));
    }
  }

  private void continueRun(String runId) {
    try {
      boolean again;
      do {
        inFlight.put(runId, false);
        Optional<TurnLoop.Progress> p = loop.resume(runId);
        String trigger = triggers.get(runId);
        if (p.isEmpty() && trigger != null) { // nothing recorded yet: take it up by its message, as its first holder did
          p = store.get(trigger).map(loop::answer);
          if (p.isEmpty()) {
            triggers.remove(runId); // the message is gone
          }
        }
        p.ifPresent(this::progressed);
        again = Boolean.TRUE.equals(inFlight.get(runId));
      } while (again && !closed);
    } catch (Throwable e) { // the model or the store failed: another event, a timer or a sweep takes the run up again
      LOG.warn("agent '{}' could not continue run '{}': {}", loop.agent().agentId(), runId, Throwables.describe(e));
      failIfModelBroke(runId, e);
      Throwables.rethrowIfFatal(e);
    } finally {
      inFlight.remove(runId);
    }
  }

  /** A model failure ends the run with an error answer, as a failed turn always has; a store failure leaves it to a retry. */
  private void failIfModelBroke(String runId, Throwable e) {
    if (!(e instanceof dev.rcrt.core.RcrtException failure) || failure.code().startsWith("store_")) {
      return;
    }
    try {
      RunRecords records = RunRecords.load(store, settings.runner().policy(), runId, loop.agent().agentId());
      if (records.startedBy != null) {
        store.get(records.startedBy).ifPresent(trigger -> progressed(
            new TurnLoop.Progress(runId, loop.recordFailure(trigger, failure), Run.Status.FAILED, "", null)));
      }
    } catch (RuntimeException again) {
      LOG.warn("could not record the failure of run '{}': {}", runId, again.getMessage());
    }
  }

  private void later(String runId, Duration delay) {
    if (closed) {
      return;
    }
    TimeSource.Timer[] self = new TimeSource.Timer[1];
    self[0] = settings.time().schedule(delay, () -> {
      if (self[0] != null) {
        timers.remove(self[0]);
      }
      resume(runId);
    });
    timers.add(self[0]);
  }

  /** Stops watching: no more events, timers cancelled; waiting callers are failed. Idempotent. */
  @Override
  public void close() {
    closed = true;
    synchronized (this) {
      subscriptions.forEach(Subscription::close);
      subscriptions.clear();
    }
    timers.forEach(TimeSource.Timer::cancel);
    awaited.values().forEach(f -> f.completeExceptionally(
        new AgentException(AgentException.CLOSED, "the agent executor was closed while a run waited; the run goes on in any process that takes it up", false, null)));
  }
}
