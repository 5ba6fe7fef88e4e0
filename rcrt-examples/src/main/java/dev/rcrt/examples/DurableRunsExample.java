package dev.rcrt.examples;

import dev.rcrt.agent.AgentExecutor;
import dev.rcrt.agent.Run;
import dev.rcrt.agent.Runs;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.Principal;

/** Runs as records: approving a waiting call, resuming a run, serving an agent. */
public final class DurableRunsExample {
  private DurableRunsExample() {}

  /** Approves the first waiting call of every run waiting for approval, then resumes {@code runId} here and serves the agent. */
  static void approveAndServe(BreadcrumbStore store, AgentExecutor executor, String runId) {
    // docs:begin runs
    Runs runs = new Runs(store);                               // list, show, approve, deny, cancel: records only
    for (Run run : runs.list(20, Run.Status.WAITING_FOR_APPROVAL)) {
      Run.PendingCall call = run.pending().get(0);             // tool, input, ApprovalRequest (expiry, requester)
      runs.approve(run.id(), call.requestId(), Principal.host(), "checked the amount");
    }
    executor.resume(runId);                                    // continue a run in this process
    executor.start();                                          // serve the agent: new messages, decided calls, dead runners' runs
    // docs:end runs
  }
}
