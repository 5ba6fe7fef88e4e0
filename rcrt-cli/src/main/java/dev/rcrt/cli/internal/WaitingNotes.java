package dev.rcrt.cli.internal;

import dev.rcrt.agent.AgentObserver;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Says on stderr what a run waits for ({@code waiting for a runner to answer 'calculator'…},
 * {@code waiting for approval of 'wire-money': ./rcrt runs approve RUN CALL}, {@code waiting for
 * input to 'book-trip' (…): ./rcrt runs answer RUN CALL '{…}'}), once per wait, and
 * otherwise passes turns to the observer it wraps (tracing).
 */
final class WaitingNotes implements AgentObserver {
  private static final Pattern CALL = Pattern.compile("approval of '([^']*)' \\(call ([^)]*)\\)");
  private static final Pattern INPUT = Pattern.compile("input for '([^']*)' \\(call ([^)]*)\\): (.*)", Pattern.DOTALL);

  private final Cli cli;
  private final String store;
  private final AgentObserver next;
  private final @Nullable ChatQuestions questions;
  private String last = "";

  WaitingNotes(Cli cli, StoreUrl store, AgentObserver next) {
    this(cli, store, next, null);
  }

  /** @param questions who answers a tool's question in this process ({@code chat}), or null: only {@code ./rcrt runs answer} does */
  WaitingNotes(Cli cli, StoreUrl store, AgentObserver next, @Nullable ChatQuestions questions) {
    this.cli = cli;
    this.store = store == StoreUrl.MEMORY ? "" : " --store " + store;
    this.next = next;
    this.questions = questions;
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
    Matcher input = INPUT.matcher(what);
    boolean asks = input.find();
    if (asks && questions != null && questions.answer(runId, input.group(2))) {
      last = ""; // answered here: the run goes on, and may ask again
    } else if (asks) {
      cli.note("waiting for input to '" + input.group(1) + "' (" + input.group(3) + "): ./rcrt runs answer " + runId + " " + input.group(2)
          + " '{…}'" + store + " (or --decline; ./rcrt runs show " + runId + store + " says what it asks for)");
    } else if (approval.find()) {
      cli.note("waiting for approval of '" + approval.group(1) + "': ./rcrt runs approve " + runId + " " + approval.group(2) + store
          + " (or runs deny)");
    } else {
      cli.note("waiting for " + what + "…");
    }
    next.runWaiting(agentId, runId, what);
  }
}
