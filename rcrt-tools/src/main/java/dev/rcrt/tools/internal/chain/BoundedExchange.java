package dev.rcrt.tools.internal.chain;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.JsonSchema;
import dev.rcrt.core.ValidationException;
import dev.rcrt.core.spi.DaemonThreads;
import dev.rcrt.core.spi.Throwables;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolEventListener;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolExchange;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.internal.CallScope;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * What stands between one call's tool and its caller's {@link ToolExchange}: every text the tool
 * sends is scrubbed of the call's secret values and cut at {@value #MAX_TEXT} characters; at most
 * {@value #MAX_NOTES} progress reports and {@value #MAX_NOTES} log messages go out (past that, one
 * warning says the rest were dropped), and at most {@value #MAX_QUESTIONS} samplings and {@value
 * #MAX_QUESTIONS} elicitations are asked (an accepted answer checked against the requested schema), each waited for at most until the call's deadline (on
 * the runner's clock, whatever thread asks: a JavaScript tool's questions are asked by the
 * runner's thread, which no deadline interrupts); a progress report that does not increase is
 * dropped; nothing goes out once the call ended ({@link #close()}). A caller's failure to take a
 * notification never fails the tool; a failed question is a {@link ToolException} without the
 * caller's internals; a question the caller records for a person instead, or a wait the tool's
 * thread is interrupted in (its caller stopping), makes the whole call wait ({@link #waiting()}):
 * no response is recorded, and the request runs again when it is taken up. The runner's {@link ToolEventListener}s hear every progress report and log
 * message that is sent. Thread-safe.
 */
final class BoundedExchange implements ToolExchange, AutoCloseable {
  static final int MAX_NOTES = 1_000;
  static final int MAX_QUESTIONS = 8;
  static final int MAX_TEXT = 8 * 1024;

  private static final ThreadFactory QUESTIONS = DaemonThreads.factory("rcrt-tool-question");

  private final ToolExchange caller;
  private final String tool;
  private final CallScope scope;
  private final ToolRequest request;
  private final ToolEventListener listeners;
  private final AtomicInteger logsSent = new AtomicInteger();
  private final AtomicInteger samplings = new AtomicInteger();
  private final AtomicInteger elicitations = new AtomicInteger();
  /** The last progress sent and how many were, guarded by {@code this}. */
  private double lastProgress = Double.NEGATIVE_INFINITY;
  private int progressSent;
  private volatile boolean closed;
  /** The caller's answer that the call must wait (a question recorded for a person), once one came. */
  private volatile @Nullable ToolException waiting;

  /** @param listeners told of every progress report and log message sent (the runner's {@code Listeners}, which contain failures) */
  BoundedExchange(ToolExchange caller, ToolRequest request, String tool, CallScope scope, ToolEventListener listeners) {
    this.caller = caller;
    this.request = request;
    this.tool = tool;
    this.scope = scope;
    this.listeners = listeners;
  }

  @Override
  public void progress(double progress, @Nullable Double total, @Nullable String message) {
    if (closed || !Double.isFinite(progress) || progress < 0 || (total != null && !(Double.isFinite(total) && total >= 0))) {
      return;
    }
    synchronized (this) {
      if (progress <= lastProgress || progressSent >= MAX_NOTES) {
        return;
      }
      lastProgress = progress;
      progressSent++;
    }
    String clean = message == null ? null : text(message);
    listeners.callProgress(request, progress, total, clean);
    quietly(() -> caller.progress(progress, total, clean));
  }

  @Override
  public void log(LogLevel level, String message) {
    if (closed) {
      return;
    }
    int n = logsSent.incrementAndGet();
    if (n <= MAX_NOTES) {
      send(level, text(message));
    } else if (n == MAX_NOTES + 1) {
      send(LogLevel.WARNING, "tool '" + tool + "' sent more than " + MAX_NOTES + " log messages; the rest of this call's are dropped");
    }
  }

  private void send(LogLevel level, String text) {
    listeners.callLog(request, level, text);
    quietly(() -> caller.log(level, text));
  }

  @Override
  public Sampled sample(Sampling request) {
    Sampling scrubbed = new Sampling(
        request.messages().stream().map(m -> new SamplingMessage(m.role(), scope.scrub(m.text()))).toList(),
        request.systemPrompt() == null ? null : scope.scrub(request.systemPrompt()), request.maxTokens());
    return ask("sampling", samplings, () -> caller.sample(scrubbed));
  }

  /**
   * Asks, once the requested schema compiles, and checks an accepted answer against it: an answer
   * that does not fit is the tool's {@code tool_input_invalid}, naming where, and the tool may ask
   * again.
   */
  @Override
  public Elicited elicit(Elicitation request) {
    JsonSchema schema;
    try {
      schema = JsonSchema.compile(request.requestedSchema());
    } catch (ValidationException broken) {
      throw new ToolException(ToolErrorCode.TOOL_FAILED, "tool '" + tool + "' asked for elicitation with a schema that is not valid: " + broken.getMessage());
    }
    Elicitation scrubbed = new Elicitation(scope.scrub(request.message()), scope.scrub(request.requestedSchema()));
    Elicited answer = ask("elicitation", elicitations, () -> caller.elicit(scrubbed));
    if (answer.action() == Elicited.Action.ACCEPT && answer.content() != null) {
      java.util.List<String> wrong = schema.violations(answer.content());
      if (!wrong.isEmpty()) {
        throw new ToolException(ToolErrorCode.TOOL_INPUT_INVALID,
            scope.scrub("tool '" + tool + "': the answer to its elicitation does not fit the requested schema: " + String.join("; ", wrong)));
      }
    }
    return answer;
  }

  /**
   * The caller's word that a question waits for a person ({@link ToolErrorCode#TOOL_WAITING}: an
   * agent's run recorded it as an {@code input.request.v1}), or that the tool's thread was
   * interrupted while it waited for an answer, or null. Once set, the call ends
   * waiting whatever the tool does with it (catches it, returns a value, fails): its request stays
   * unanswered until it runs again with the answer.
   */
  @Nullable ToolException waiting() {
    return waiting;
  }

  /** Ends the call's exchange: nothing more is sent, nothing more asked. */
  @Override
  public void close() {
    closed = true;
  }

  /**
   * Asks the caller on a thread of the question's own, and waits for the answer at most until the
   * call's deadline, on the runner's clock; the question's thread is interrupted when the wait ends.
   */
  private <T> T ask(String what, AtomicInteger asked, Supplier<T> question) {
    ToolException waits = waiting;
    if (waits != null) {
      throw waits; // the call waits already: nothing more is asked in this run of it
    }
    if (closed || scope.remaining().isZero()) {
      throw timedOut(what);
    }
    if (asked.incrementAndGet() > MAX_QUESTIONS) {
      throw new ToolException(ToolErrorCode.TOOL_DENIED,
          "tool '" + tool + "' asked for " + what + " more than " + MAX_QUESTIONS + " times in one call; no more are sent");
    }
    CompletableFuture<T> answer = new CompletableFuture<>();
    Thread asker = QUESTIONS.newThread(() -> {
      try {
        answer.complete(question.get());
      } catch (Throwable t) { // handed to the waiting tool, which rethrows what is fatal
        answer.completeExceptionally(t);
      }
    });
    asker.start();
    try {
      return scope.time().orTimeout(answer, scope.remaining()).get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      if (cause instanceof TimeoutException) {
        throw timedOut(what);
      }
      if (cause instanceof ToolException refused) {
        if (ToolErrorCode.TOOL_WAITING.is(refused.code())) {
          waiting = refused;
        }
        throw refused;
      }
      Throwables.rethrowIfFatal(cause);
      throw new ToolException(ToolErrorCode.TOOL_FAILED, scope.scrub("tool '" + tool + "': the caller's " + what + " failed: " + Throwables.describe(cause)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      if (scope.remaining().isZero()) { // stopped by the call's own deadline, which may beat the wait's timer to it
        throw timedOut(what);
      }
      // the caller is stopping (an executor closing): the call has no outcome, and is run again by whoever takes it up
      ToolException stopped = new ToolException(ToolErrorCode.TOOL_WAITING,
          "tool '" + tool + "' was stopped while it waited for its caller's " + what + "; the call has no result and runs again when it is taken up");
      waiting = stopped;
      throw stopped;
    } finally {
      asker.interrupt(); // a caller still waiting for an answer nobody takes stops
    }
  }

  private ToolException timedOut(String what) {
    return new ToolException(ToolErrorCode.TOOL_TIMEOUT,
        "tool '" + tool + "': its caller did not answer its " + what + " within the call's time limit of " + scope.limit().toMillis() + " ms");
  }

  private String text(String message) {
    String clean = scope.scrub(message);
    return clean.length() <= MAX_TEXT ? clean : clean.substring(0, MAX_TEXT) + "… (" + (clean.length() - MAX_TEXT) + " more characters)";
  }

  /** Sends a notification; a caller that cannot take it (gone, closed) does not fail the tool. */
  private static void quietly(Runnable send) {
    try {
      send.run();
    } catch (RuntimeException gone) {
      // notifications are best effort: the call's result still reaches the caller
    }
  }
}
