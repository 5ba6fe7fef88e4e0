package dev.rcrt.agent.internal.loop;

import dev.rcrt.agent.AgentException;
import dev.rcrt.agent.AgentResponse;
import dev.rcrt.agent.Run;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbEvent;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.RcrtException;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.core.spi.Members;
import dev.rcrt.core.spi.OwnedTimers;
import dev.rcrt.core.spi.Throwables;
import dev.rcrt.tools.ApprovalDecision;
import dev.rcrt.tools.InputResponse;
import dev.rcrt.tools.ToolResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one owner of the runs an executor drives: it takes their steps on the executor's turn
 * threads when something moves them on, and publishes their answers to whoever waits.
 *
 * <p><b>Wake-ups.</b> Each run driven here has a wake-up count. {@link #wake} adds one and, unless
 * a step of that run is queued or running here, queues one; a step that ends finds the count moved
 * when a wake-up arrived while it ran, and steps again. So a record that arrives during a step (a
 * decision, a response, an answer) is never lost, and no two threads of this executor step one run
 * at once. Wake-ups come from the records that move a run on ({@code tool.response.v1}, {@code
 * approval.decision.v1}), from new messages ({@link #serve}), and from timers at the time a waiting
 * run asked to be looked at again (an approval's expiry, a response timeout, the deadline, a lease
 * another process held). A run whose call waits for a specialist's child run is woken by the
 * child's records: its responses and decisions (known here from the parent's last step, or, in
 * fleet mode, from the child's records, which name their parent) and its answer (tagged {@code
 * parent_run:}), whichever process writes them.
 *
 * <p><b>Answers.</b> {@link #answerOf} gives a future completed by the run's answer record,
 * whichever process writes it; nothing polls the store. Only the agent's own answers count (a
 * record a tool planted under a run's tag answers nothing), as in the run's records.
 *
 * <p><b>Work that does not grow with the fleet.</b> A run that has ended (its answer was heard,
 * or a step here ended it) is not looked at again: wake-ups that arrive for it, during its last
 * step or after, are dropped. A run another process holds is left to that process until its hold
 * runs out: the responses of its calls, which that process takes, wake nothing here; the look at
 * the end of the hold (a timer) still comes, and approval decisions and answers to questions still
 * wake it at once (its holder may have given it back to wait for them).
 *
 * <p>In fleet mode ({@link #fleet}) it takes up any run of its agent, not only those this process
 * started, as a member of the agent's fleet ({@link Members}, group {@code run:<agent id>}): a new
 * message, or a record that moves a run on that nobody here waits for, is taken up at once only by
 * the member it is offered to first; the others look at it a lease later if it has not ended by
 * then (its answer drops their look), so a fleet of any size spends one claim on it. Subscribes on
 * first use. Thread-safe.
 */
public final class RunDriver implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RunDriver.class);
  /** How long a run waits for a turn thread when every one is busy. */
  private static final Duration BUSY = Duration.ofSeconds(1);
  /** How many ended runs are remembered, the most recent: a wake-up of an older one costs a look at its claim. */
  private static final int ENDED_KEPT = 10_000;

  private final TurnLoop loop;
  private final LoopSettings settings;
  private final BreadcrumbStore store;
  /** The message of each run that may have recorded nothing yet, by run id: such a run is found by its message, not its id. */
  private final Map<String, String> triggers = new ConcurrentHashMap<>();
  private final Map<String, CompletableFuture<Breadcrumb>> awaited = new ConcurrentHashMap<>();
  /** How many run records (responses, decisions, answers, runs' answers) were heard, whichever run they belong to. */
  private final java.util.concurrent.atomic.AtomicLong heard = new java.util.concurrent.atomic.AtomicLong();
  /** Child runs (specialists' runs) that runs driven here wait for, and the run each moves on. */
  private final Map<String, String> parents = new ConcurrentHashMap<>();
  /** Runs with a step queued or running here, and the wake-ups each has had; guarded by itself. */
  private final Map<String, Wakes> driving = new HashMap<>();
  /** Runs that ended, the {@value #ENDED_KEPT} most recent; guarded by itself. */
  private final Set<String> ended = Collections.newSetFromMap(new LinkedHashMap<>() {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
      return size() > ENDED_KEPT;
    }
  });
  /** Runs another process holds, and when that hold runs out unless renewed (a timer looks then). */
  private final Map<String, Instant> heldElsewhere = new ConcurrentHashMap<>();
  /** The looks at runs set for later (a waiting run's date, a lease that may run out, a busy executor). */
  private final OwnedTimers timers;
  private final List<Subscription> subscriptions = new ArrayList<>();
  /** Offered runs this member left to the member they are offered to first, and the look a lease later at each. */
  private final Map<String, dev.rcrt.core.TimeSource.Timer> deferred = new ConcurrentHashMap<>();
  /** This executor's fleet membership, from {@link #fleet}. */
  private volatile @Nullable Members members;
  private volatile boolean fleet;
  private volatile boolean closed;

  /** One run's wake-ups while it is driven here. */
  private static final class Wakes {
    long count;
    /** A message to answer, handed over by {@link #serve}, taken by the next step. */
    @Nullable Breadcrumb message;
    /** Whether a wake-up since the last step must be looked at here (a timer, a caller here); else each was an offer to the fleet. */
    boolean look;
  }

  public RunDriver(TurnLoop loop, LoopSettings settings) {
    this.loop = loop;
    this.settings = settings;
    this.store = settings.runner().store();
    this.timers = new OwnedTimers(settings.time());
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

  /**
   * Watches the store's run records from now on (subscribing once, for the executor's life), so
   * that a record written during steps about to be taken is heard.
   *
   * @return a mark for {@link #heardSince}: how many run records were heard so far
   */
  public long watch() {
    subscribe();
    return heard.get();
  }

  /** Whether a record of any run was heard since {@link #watch} returned {@code mark}; always true before the first watch. */
  public boolean heardSince(long mark) {
    return heard.get() != mark;
  }

  /** Also takes up runs of this agent that other processes started or left (runner mode), as a member of the agent's fleet. */
  public synchronized void fleet() {
    if (members == null && !closed) {
      Members m = new Members(store, settings.claims(), settings.leases(), "run:" + loop.agent().agentId(), settings.owner(),
          settings.runLease(), settings.time());
      m.join();
      members = m;
    }
    fleet = true;
    subscribe();
  }

  /** Answers stored message {@code trigger}: its run's steps are taken on a turn thread, as any wake-up's. */
  public void serve(Breadcrumb trigger) {
    String runId = loop.runIdOf(trigger);
    if (hasEnded(runId)) {
      return; // answered: nothing to take up, and nothing to remember its message for
    }
    triggers.putIfAbsent(runId, trigger.id());
    wake(runId, trigger, false);
  }

  /** Acts on where a run stands after steps taken here: looks again when it asked to, or when another holder's lease may run out. */
  public void progressed(TurnLoop.Progress p) {
    if (p.answer() != null || p.status() != Run.Status.RUNNING) {
      triggers.remove(p.runId());
    }
    p.children().forEach(child -> parents.put(child, p.runId()));
    if (p.ended()) {
      parents.values().removeIf(p.runId()::equals);
      ended(p.runId());
    } else if (p.isHeldElsewhere()) {
      heldElsewhere.put(p.runId(), Objects.requireNonNull(p.wakeAt(), "wakeAt"));
    } else {
      heldElsewhere.remove(p.runId());
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
      timers.at(p.wakeAt(), () -> wake(p.runId())); // for the date itself: the source reads and sets in one step where it can
    }
  }

  private synchronized void subscribe() {
    if (!subscriptions.isEmpty() || closed) {
      return;
    }
    subscriptions.add(store.subscribe(Selector.schema(ToolResponse.SCHEMA), this::onRecord));
    subscriptions.add(store.subscribe(Selector.schema(ApprovalDecision.SCHEMA), this::onRecord));
    subscriptions.add(store.subscribe(Selector.schema(InputResponse.SCHEMA), this::onRecord));
    subscriptions.add(store.subscribe(Selector.schema(AgentResponse.SCHEMA).withAllTags("agent:response"), this::onAnswer));
  }

  private void onRecord(BreadcrumbEvent event) {
    if (event.type() != BreadcrumbEvent.Type.CREATED) {
      return;
    }
    heard.incrementAndGet();
    Optional<String> run = event.breadcrumb().tagValue("run:");
    if (run.isEmpty()) {
      return;
    }
    String parent = parents.get(run.get());
    if (parent != null) {
      wake(parent); // a child run's decision or response: the parent's step takes the child's steps
    } else if (takenElsewhere(run.get(), event.breadcrumb())) {
      return; // its holder takes it
    } else if (awaited.containsKey(run.get())) {
      wake(run.get()); // a caller here waits for it
    } else if (fleet) {
      wake(run.get(), null, false); // offered to the fleet
    }
  }

  /**
   * Whether {@code record} is a response to a call of a run another process holds, whose hold has
   * not run out: that process takes its calls' responses, and the end of its hold is looked at anyway.
   */
  private boolean takenElsewhere(String runId, Breadcrumb record) {
    Instant until = heldElsewhere.get(runId);
    return until != null && ToolResponse.SCHEMA.equals(record.schemaName()) && settings.time().instant().isBefore(until);
  }

  private void ended(String runId) {
    heldElsewhere.remove(runId);
    triggers.remove(runId);
    dev.rcrt.core.TimeSource.Timer look = deferred.remove(runId);
    if (look != null) {
      look.cancel();
    }
    synchronized (ended) {
      ended.add(runId);
    }
  }

  private boolean hasEnded(String runId) {
    synchronized (ended) {
      return ended.contains(runId);
    }
  }

  private void onAnswer(BreadcrumbEvent event) {
    heard.incrementAndGet();
    Optional<String> parent = event.breadcrumb().tagValue(Trigger.PARENT_TAG);
    if (event.type() == BreadcrumbEvent.Type.CREATED && parent.isPresent()) { // a child run answered (in any process): its parent's call has its output
      if (awaited.containsKey(parent.get()) || parents.containsValue(parent.get())) {
        wake(parent.get());
      } else if (fleet) {
        wake(parent.get(), null, false);
      }
    }
    Optional<String> run = event.breadcrumb().tagValue("run:");
    if (event.type() == BreadcrumbEvent.Type.CREATED && run.isPresent() && RunRecords.isAnswerBy(event.breadcrumb(), loop.agent().agentId())) {
      ended(run.get());
      CompletableFuture<Breadcrumb> waiting = awaited.get(run.get());
      if (waiting != null) {
        waiting.complete(event.breadcrumb());
      }
    }
  }

  /** Wakes run {@code runId}: it is stepped on a turn thread, once more after a step under way here ends. */
  public void wake(String runId) {
    wake(runId, null, true);
  }

  /**
   * Wakes run {@code runId} with {@code message} to answer, if any; {@code look} false for an offer
   * to the fleet, which this member takes up at once only when it is the one the run is offered to first.
   */
  private void wake(String runId, @Nullable Breadcrumb message, boolean look) {
    if (closed || hasEnded(runId)) {
      return;
    }
    synchronized (driving) {
      Wakes w = driving.get(runId);
      if (w != null) {
        w.count++;
        w.message = message != null ? message : w.message;
        w.look |= look;
        return; // a step is queued or running: it steps again when it ends
      }
      w = new Wakes();
      w.count = 1;
      w.message = message;
      w.look = look;
      driving.put(runId, w);
    }
    try {
      settings.threads().turn(() -> {
        drive(runId);
        return null;
      });
    } catch (AgentException busy) {
      synchronized (driving) {
        driving.remove(runId);
      }
      LOG.warn("agent '{}' is busy; run '{}' is looked at again in {} ms: {}", loop.agent().agentId(), runId, BUSY.toMillis(), busy.getMessage());
      later(runId, BUSY);
    }
  }

  /** Steps run {@code runId} until no wake-up arrived during its last step. */
  private void drive(String runId) {
    boolean done = false;
    boolean stepped = false;
    try {
      while (!done) {
        long seen;
        Breadcrumb message;
        boolean look;
        synchronized (driving) {
          Wakes w = driving.get(runId);
          if (w == null) {
            return;
          }
          seen = w.count;
          message = w.message;
          look = w.look;
          w.message = null;
          w.look = false;
        }
        if (look || stepped || offeredHere(runId)) {
          step(runId, message);
          stepped = true; // what arrives while this process steps the run is its to look at
        }
        synchronized (driving) {
          Wakes w = driving.get(runId);
          done = w == null || w.count == seen || closed || hasEnded(runId); // an ended run needs no further look
          if (done) {
            driving.remove(runId);
          }
        }
      }
    } finally {
      if (!done) { // a fatal error escaped the step
        synchronized (driving) {
          driving.remove(runId);
        }
      }
    }
  }

  /**
   * Whether this member takes up an offered run now: it is the member the run is offered to first,
   * or none is known. Otherwise the run is looked at a lease later (once, however many offers come
   * meanwhile), unless it ends first.
   */
  private boolean offeredHere(String runId) {
    Members m = members;
    if (m == null || m.first(runId)) {
      return true;
    }
    deferred.computeIfAbsent(runId, id -> timers.after(settings.runLease(), () -> {
      deferred.remove(id);
      wake(id);
    }));
    return false;
  }

  /** One look at a run: its steps, from its records or from the message that starts it; failures become answers or retries. */
  private void step(String runId, @Nullable Breadcrumb message) {
    try {
      Optional<TurnLoop.Progress> p;
      if (message != null) {
        p = Optional.of(loop.answer(message));
      } else {
        p = loop.resume(runId);
        String trigger = triggers.get(runId);
        if (p.isEmpty() && trigger != null) { // nothing recorded yet: take it up by its message, as its first holder did
          p = store.get(trigger).map(loop::answer);
          if (p.isEmpty()) {
            triggers.remove(runId); // the message is gone
          }
        }
      }
      p.ifPresent(this::progressed);
    } catch (Throwable e) {
      LOG.warn("agent '{}' could not continue run '{}': {}", loop.agent().agentId(), runId, Throwables.describe(e));
      failed(runId, message, e);
      Throwables.rethrowIfFatal(e);
    }
  }

  /**
   * A store failure leaves the run to a later look (a lease later); any other failure (the model's,
   * a host's client or observer throwing) ends the run with an error answer, as a failed turn always has.
   */
  private void failed(String runId, @Nullable Breadcrumb message, Throwable e) {
    if (e instanceof RcrtException failure && failure.code().startsWith("store_")) {
      later(runId, settings.runLease());
      return;
    }
    RcrtException failure = e instanceof RcrtException r ? r
        : new AgentException(AgentException.FAILED, "agent '" + loop.agent().agentId() + "' failed: " + Throwables.describe(e), false, e);
    try {
      Breadcrumb trigger = message;
      if (trigger == null) {
        RunRecords records = RunRecords.load(store, settings.runner().policy(), runId, loop.agent().agentId());
        String started = records.startedBy != null ? records.startedBy : triggers.get(runId);
        trigger = started == null ? null : store.get(started).orElse(null);
      }
      if (trigger != null) {
        progressed(new TurnLoop.Progress(runId, loop.recordFailure(trigger, failure), Run.Status.FAILED, "", null));
      }
    } catch (RuntimeException again) {
      LOG.warn("could not record the failure of run '{}': {}", runId, again.getMessage());
      later(runId, settings.runLease());
    }
  }

  private void later(String runId, Duration delay) {
    timers.after(delay, () -> wake(runId));
  }

  /** Stops driving: no more events, timers cancelled; waiting callers are failed. Idempotent. */
  @Override
  public void close() {
    closed = true;
    synchronized (this) {
      subscriptions.forEach(Subscription::close);
      subscriptions.clear();
      if (members != null) {
        members.close();
      }
    }
    deferred.clear();
    timers.cancelAll();
    awaited.values().forEach(f -> f.completeExceptionally(
        new AgentException(AgentException.CLOSED, "the agent executor was closed while a run waited; the run goes on in any process that takes it up", false, null)));
  }
}
