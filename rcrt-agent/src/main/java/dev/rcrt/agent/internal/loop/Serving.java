package dev.rcrt.agent.internal.loop;

import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.AgentResponse;
import dev.rcrt.agent.UserMessage;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbEvent;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import java.util.ArrayList;
import java.util.List;

/**
 * An executor serving its agent from the store ({@code AgentExecutor.start()}): runs for new
 * messages its trigger selectors match, continuations of its waiting runs, takeovers of runs whose
 * process died, and, at start, the newest unanswered messages. Every step goes through the
 * executor's {@link RunDriver}, on its turn threads; failures become error answers. Thread-safe.
 */
public final class Serving {
  /** How many of the newest matching messages {@link #start()} looks at for unanswered ones. */
  private static final int SWEEP = 500;

  private final AgentDefinition agent;
  private final BreadcrumbStore store;
  private final RunDriver driver;

  public Serving(AgentDefinition agent, BreadcrumbStore store, RunDriver driver) {
    this.agent = agent;
    this.store = store;
    this.driver = driver;
  }

  /** Subscribes and sweeps; see {@code AgentExecutor.start()}. */
  public Subscription start() {
    List<Selector> selectors =
        agent.subscriptions().isEmpty() ? List.of(Selector.schema(UserMessage.SCHEMA)) : agent.subscriptions();
    driver.fleet();
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

  /** Hands the message's run to the driver, which takes its steps on a turn thread (and looks again later when they are all busy). */
  private void offer(Breadcrumb trigger) {
    driver.serve(trigger);
  }
}
