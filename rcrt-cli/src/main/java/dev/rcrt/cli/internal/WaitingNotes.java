package dev.rcrt.cli.internal;

import dev.rcrt.agent.AgentObserver;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Says on stderr what a run waits for ({@code waiting for a runner to answer 'calculator'…},
 * {@code waiting for approval of 'wire-money': ./rcrt runs approve RUN CALL}), once per wait, and
 * otherwise passes turns to the observer it wraps (tracing).
 */
final class WaitingNotes implements AgentObserver {
  private static final Pattern CALL = Pattern.compile("approval of '([^']*)' \\(call ([^)]*)\\)");

  private final Cli cli;
  private final String store;
  private final AgentObserver next;
  private String last = "";

  WaitingNotes(Cli cli, StoreUrl store, AgentObserver next) {
    this.cli = cli;
    this.store = store == StoreUrl.MEMORY ? "" : " --store " + store;
    this.next = next;
  }

  @Override
  public Turn turnStarted(String agentId, String sessionId) {
    return next.turnStarted(agentId, sessionId);
  }

  @Override
  public <T> Callable<T> carry(Callable<T> task) {
    return next.carry(task);
  }

  @Override
  public synchronized void runWaiting(String agentId, String runId, String what) {
    if (what.equals(last) || what.isBlank()) {
      return;
    }
    last = what;
    Matcher approval = CALL.matcher(what);
    if (approval.find()) {
      cli.note("waiting for approval of '" + approval.group(1) + "': ./rcrt runs approve " + runId + " " + approval.group(2) + store
          + " (or runs deny)");
    } else {
      cli.note("waiting for " + what + "…");
    }
    next.runWaiting(agentId, runId, what);
  }
}
