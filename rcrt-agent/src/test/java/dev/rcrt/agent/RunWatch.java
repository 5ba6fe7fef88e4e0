package dev.rcrt.agent;

import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.testing.StoreWaits;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;

/** Waiting on runs in tests: on the store's events and the executor's own word, never on sleeps. */
final class RunWatch {
  private RunWatch() {}

  /** The first run in {@code runs} with {@code status} that {@code which} accepts, looked for again after each record written to {@code store}. */
  static Run awaitStatus(BreadcrumbStore store, Runs runs, Run.Status status, Predicate<Run> which) throws InterruptedException {
    List<Run> found = new java.util.ArrayList<>();
    if (!StoreWaits.until(store, () -> {
      found.clear();
      found.addAll(runs.list(10, status).stream().filter(which).toList());
      return !found.isEmpty();
    }, Duration.ofSeconds(120))) {
      throw new AssertionError("no run reached " + status + " within 120 s; runs: "
          + runs.list(10).stream().map(r -> r.id() + " " + r.status()).toList());
    }
    return found.get(0);
  }

  /** An observer that tells {@code waiting} what a run waits for each time a step ends with the run waiting. */
  static AgentObserver waits(Consumer<String> waiting) {
    return new AgentObserver() {
      @Override
      public Turn turnStarted(String agentId, String sessionId) {
        return (response, failure) -> {};
      }

      @Override
      public void runWaiting(String agentId, String runId, String what) {
        waiting.accept(what);
      }
    };
  }
}
