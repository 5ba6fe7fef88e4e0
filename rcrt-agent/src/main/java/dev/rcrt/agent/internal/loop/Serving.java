package dev.rcrt.agent.internal.loop;

import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.AgentException;
import dev.rcrt.agent.AgentResponse;
import dev.rcrt.agent.Run;
import dev.rcrt.agent.UserMessage;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbEvent;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.RcrtException;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.core.spi.Throwables;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An executor serving its agent from the store ({@code AgentExecutor.start()}): runs for new
 * messages its trigger selectors match, continuations of its waiting runs, takeovers of runs whose
 * process died, and, at start, the newest unanswered messages. Steps run on the executor's turn
 * threads; failures become error answers. Thread-safe.
 */
public final class Serving {
  private static final Logger LOG = LoggerFactory.getLogger(Serving.class);
  /** How many of the newest matching messages {@link #start()} looks at for unanswered ones. */
  private static final int SWEEP = 500;

  private final AgentDefinition agent;
  private final BreadcrumbStore store;
  private final TurnLoop loop;
  private final RunWatcher watcher;
  private final AgentThreads threads;

  public Serving(AgentDefinition agent, BreadcrumbStore store, TurnLoop loop, RunWatcher watcher, AgentThreads threads) {
    this.agent = agent;
    this.store = store;
    this.loop = loop;
    this.watcher = watcher;
    this.threads = threads;
  }

  /** Subscribes and sweeps; see {@code AgentExecutor.start()}. */
  public Subscription start() {
    List<Selector> selectors =
        agent.subscriptions().isEmpty() ? List.of(Selector.schema(UserMessage.SCHEMA)) : agent.subscriptions();
    watcher.fleet();
    List<Subscription> subs = new ArrayList<>();
    for (Selector selector : selectors) {
      subs.add(store.subscribe(selector, this::onEvent));
    }
    sweep(selectors);
    return () -> subs.forEach(Subscription::close);
  }

  /** Starts or continues the runs of the newest unanswered messages the selectors match. */
  private void sweep(List<Selector> selectors) {
    java.util.Set<String> answered = new java.util.HashSet<>();
    for (Breadcrumb b : store.search(Selector.schema(AgentResponse.SCHEMA).withAllTags("agent:response"), SWEEP * 2, 0)) {
      if (agent.agentId().equals(b.contextText("agent_id"))) {
        answered.add(String.valueOf(b.contextText("trigger_id")));
      }
    }
    for (Selector selector : selectors) {
      for (Breadcrumb trigger : store.search(selector, SWEEP, 0)) {
        if (startsTurn(trigger) && !answered.contains(trigger.id())) {
          offer(trigger);
        }
      }
    }
  }

  private static boolean startsTurn(Breadcrumb trigger) {
    return UserMessage.SCHEMA.equals(trigger.schemaName()) || "agent.context.v1".equals(trigger.schemaName());
  }

  private void onEvent(BreadcrumbEvent event) {
    if (event.type() == BreadcrumbEvent.Type.CREATED && startsTurn(event.breadcrumb())) {
      offer(event.breadcrumb());
    }
  }

  /** Takes a run's steps on a turn thread; when they are all busy, the run is taken up by a later look. */
  private void offer(Breadcrumb trigger) {
    try {
      threads.turn(() -> {
        serve(trigger);
        return null;
      });
    } catch (AgentException busy) {
      LOG.warn("agent '{}' is busy; run of '{}' left for a later look: {}", agent.agentId(), trigger.id(), busy.getMessage());
      watcher.progressed(new TurnLoop.Progress(loop.runIdOf(trigger), null, Run.Status.RUNNING, "", null), trigger);
    }
  }

  private void serve(Breadcrumb trigger) {
    String runId = loop.runIdOf(trigger);
    if (!watcher.enter(runId, trigger)) {
      return; // this executor is taking the run's steps already; it looks again when they end
    }
    try {
      answer(trigger);
    } finally {
      watcher.leave(runId);
    }
  }

  private void answer(Breadcrumb trigger) {
    try {
      watcher.progressed(loop.answer(trigger), trigger);
    } catch (RcrtException e) {
      LOG.warn("agent '{}' could not answer '{}': {}", agent.agentId(), trigger.id(), e.getMessage());
      if (!e.code().startsWith("store_")) {
        loop.recordFailure(trigger, e);
      } else {
        watcher.progressed(new TurnLoop.Progress(loop.runIdOf(trigger), null, Run.Status.RUNNING, "", null), trigger); // try again later
      }
    } catch (Throwable e) { // a host's model client or observer that throws something else: the message still gets its answer
      LOG.warn("agent '{}' could not answer '{}'", agent.agentId(), trigger.id(), e);
      loop.recordFailure(trigger, new AgentException(AgentException.FAILED, "agent '" + agent.agentId() + "' failed: " + Throwables.describe(e), false, e));
      Throwables.rethrowIfFatal(e);
    }
  }
}
