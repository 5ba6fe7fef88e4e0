package dev.rcrt.agent.internal.loop;

import dev.rcrt.agent.AgentException;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The threads one {@code AgentExecutor} owns, all made by the host's {@link ThreadFactory} (daemon
 * threads by default, virtual threads where the host passes {@code Thread.ofVirtual().factory()})
 * and all stopped by {@link #close()}: the pool for parallel tool calls (unless the host gave its
 * own, which it keeps), the specialists' turns, and {@code askAsync}'s turns. Each pool is bounded;
 * a turn or specialist past its bound fails with a typed error instead of queueing without end.
 *
 * <p>Thread-safe.
 */
public final class AgentThreads implements AutoCloseable {
  /** The most specialist turns (every depth) and asynchronous turns that may run at once. */
  public static final int MAX_CONCURRENT_TURNS = 64;
  /** The most asynchronous turns and run steps that may wait for a thread; beyond it they are refused {@code agent_busy}. */
  public static final int MAX_QUEUED_TURNS = 10_000;

  private final ThreadFactory factory;
  private final ExecutorService tools;
  private final boolean ownsTools;
  private final ThreadPoolExecutor specialists;
  private final ThreadPoolExecutor turns;
  /** Set on this object's turn and specialist threads while they run a task: {@link #close()} does not wait for itself. */
  private final ThreadLocal<Boolean> inside = new ThreadLocal<>();

  /** How long {@link #close()} waits for interrupted turns to end: 5 s. */
  static final java.time.Duration CLOSING = java.time.Duration.ofSeconds(5);

  /**
   * @param hostTools the host's pool for tool calls, which it keeps, or null for {@code
   *     parallelism} threads owned here
   */
  public AgentThreads(ThreadFactory factory, int parallelism, @Nullable ExecutorService hostTools) {
    this.factory = factory;
    this.ownsTools = hostTools == null;
    this.tools = hostTools != null ? hostTools : new ThreadPoolExecutor(
        parallelism, parallelism, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), factory);
    this.specialists = bounded(factory);
    this.turns = new ThreadPoolExecutor(
        MAX_CONCURRENT_TURNS, MAX_CONCURRENT_TURNS, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(MAX_QUEUED_TURNS), factory);
    this.turns.allowCoreThreadTimeOut(true);
  }

  private static ThreadPoolExecutor bounded(ThreadFactory factory) {
    return new ThreadPoolExecutor(0, MAX_CONCURRENT_TURNS, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), factory);
  }

  /** Where the calls of one answer run concurrently. */
  public ExecutorService tools() {
    return tools;
  }

  /** The factory the executor's threads come from (a specialist's own tool pool too). */
  public ThreadFactory factory() {
    return factory;
  }

  /**
   * Runs a specialist's turn on its own thread, so that its caller can stop waiting at the
   * specialist timeout.
   *
   * @throws AgentException {@code agent_busy} when {@value #MAX_CONCURRENT_TURNS} specialist turns already run
   */
  public Future<?> specialist(Runnable turn) {
    return submit(specialists, Executors.callable(turn), "specialist turns");
  }

  /**
   * Runs an asynchronous turn or a run's steps, at most {@value #MAX_CONCURRENT_TURNS} at once; the
   * rest wait their turn in order.
   *
   * @throws AgentException {@code agent_busy} when {@value #MAX_QUEUED_TURNS} already wait
   */
  public <T> Future<T> turn(Callable<T> turn) {
    return submit(turns, turn, "asynchronous turns");
  }

  private <T> Future<T> submit(ThreadPoolExecutor pool, Callable<T> task, String what) {
    try {
      return pool.submit(() -> {
        inside.set(Boolean.TRUE);
        try {
          return task.call();
        } finally {
          inside.remove();
        }
      });
    } catch (RejectedExecutionException full) {
      if (pool.isShutdown()) {
        throw new AgentException(AgentException.CLOSED, "the agent executor is closed; build a new one", false, null);
      }
      throw new AgentException(
          AgentException.BUSY, "too many " + what + " already run or wait on this agent executor; wait for one to end and ask again", true, full);
    }
  }

  /**
   * Stops every pool made here (running turns are interrupted), then waits up to {@link #CLOSING}
   * for the interrupted turns to end, so that the runs they held are given back (another executor
   * or process takes them up at once, not a lease later); it does not wait when called from one of
   * these turns. A host's tool pool is left alone. Idempotent.
   */
  @Override
  public void close() {
    if (ownsTools) {
      tools.shutdownNow();
    }
    specialists.shutdownNow();
    turns.shutdownNow();
    if (inside.get() != null) {
      return;
    }
    long deadline = System.nanoTime() + CLOSING.toNanos();
    try {
      for (ExecutorService pool : List.of(turns, specialists)) {
        pool.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
