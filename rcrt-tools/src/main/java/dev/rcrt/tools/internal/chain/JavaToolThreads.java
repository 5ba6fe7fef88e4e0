package dev.rcrt.tools.internal.chain;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.TimeSource;
import dev.rcrt.core.spi.DaemonThreads;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The threads Java tool code (builtin, {@code @Tool} and module handlers) runs on, owned by one
 * {@code ToolRunner}: each call runs on a pool thread while its caller waits at most the call's
 * time left, so a handler that ignores interruption (a busy loop) cannot hold the caller (an
 * agent's tool thread, a listener) past its deadline. At the deadline the handler's thread is
 * interrupted and the call ends {@code tool_timeout}; a handler still running then is
 * <b>abandoned</b>: named in a WARN line and counted ({@link #abandoned()}) until it returns. Java
 * code cannot be stopped safely from outside, so at most {@value #MAX_ABANDONED} abandoned calls
 * are allowed at once: past that, Java tool calls are refused ({@code tool_failed}, saying how many
 * still run) until one returns. Thread-safe; {@link #close()} interrupts what runs.
 */
public final class JavaToolThreads implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(JavaToolThreads.class);

  /** How many abandoned calls may run at once before Java tool calls are refused. */
  public static final int MAX_ABANDONED = 8;

  private static final int RUNNING = 0;
  private static final int DONE = 1;
  private static final int ABANDONED = 2;

  private final ExecutorService pool = DaemonThreads.pool(0, "rcrt-java-tool");
  private final AtomicInteger abandoned = new AtomicInteger();
  private final TimeSource time;

  public JavaToolThreads(TimeSource time) {
    this.time = time;
  }

  /** Calls that passed their deadline and still run. */
  public int abandoned() {
    return abandoned.get();
  }

  /**
   * Runs {@code code} for tool {@code tool} on a pool thread and waits at most {@code wait} (the
   * call's time left of its {@code limit}, which errors name).
   *
   * @return what the code returned
   * @throws ToolException {@code tool_timeout} at the limit; {@code tool_failed} when too many
   *     abandoned calls still run; what the code threw as a {@code ToolException}
   * @throws Error what the code threw as an {@link Error}, for the chain to record and rethrow
   * @throws InterruptedException when the caller is interrupted twice (once, the code is interrupted
   *     and its outcome is the call's; the caller's interrupt is kept)
   * @throws Exception what else the code threw
   */
  JsonNode run(String tool, Callable<JsonNode> code, Duration wait, Duration limit) throws Exception {
    int stuck = abandoned.get();
    if (stuck >= MAX_ABANDONED) {
      throw new ToolException(ToolErrorCode.TOOL_FAILED, "tool '" + tool + "' was not run: " + stuck
          + " Java tool calls still run past their deadline (they ignore interruption); the runner takes no more until one returns");
    }
    long deadline = time.nanoTime() + wait.toNanos();
    AtomicInteger state = new AtomicInteger(RUNNING);
    CompletableFuture<JsonNode> done = new CompletableFuture<>();
    // the deadline is set before the code can start: code that moves the clock (a test's) or runs long before this thread
    // goes on must still meet the deadline of the call's start, not one set after the code has begun
    CompletableFuture<JsonNode> bounded = time.orTimeout(done, wait);
    Future<?> running = pool.submit(() -> {
      try {
        done.complete(code.call());
      } catch (Throwable t) {
        done.completeExceptionally(t);
      } finally {
        if (!state.compareAndSet(RUNNING, DONE)) {
          int left = abandoned.decrementAndGet();
          LOG.info("tool '{}' returned after its call was abandoned at its deadline; {} abandoned call(s) still run", tool, left);
        }
      }
    });
    boolean interrupted = false;
    try {
      while (true) {
        try {
          JsonNode out = bounded.get();
          if (time.nanoTime() - deadline >= 0) { // returned, but after its deadline: its result is discarded
            throw timedOut(tool, limit);
          }
          return out;
        } catch (InterruptedException e) {
          if (interrupted) {
            running.cancel(true);
            throw e;
          }
          // the caller is being stopped: the code is interrupted as it would have been on the caller's thread, and what it
          // makes of that (an answer, a failure, a "still waiting") is the call's, within the call's time left
          interrupted = true;
          running.cancel(true);
        }
      }
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof TimeoutException) {
        running.cancel(true);
        if (state.compareAndSet(RUNNING, ABANDONED)) {
          int now = abandoned.incrementAndGet();
          LOG.warn("tool '{}' ignored its deadline ({} ms) and its interrupt; its call ended tool_timeout and its thread is abandoned"
              + " ({} abandoned call(s) run, at most {})", tool, limit.toMillis(), now, MAX_ABANDONED);
        }
        throw timedOut(tool, limit);
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw cause instanceof Exception ex ? ex : new IllegalStateException(cause);
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static ToolException timedOut(String tool, Duration limit) {
    return new ToolException(ToolErrorCode.TOOL_TIMEOUT, "tool '" + tool + "' timed out after " + limit.toMillis() + " ms");
  }

  /** Interrupts every call still running; the pool's threads are daemons. */
  @Override
  public void close() {
    pool.shutdownNow();
  }
}
