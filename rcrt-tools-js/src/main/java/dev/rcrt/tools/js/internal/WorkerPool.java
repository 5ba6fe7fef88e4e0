package dev.rcrt.tools.js.internal;

import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JavaScript worker processes of one {@code JavaScriptRuntime}: a worker holds no state of any
 * call between calls (each call runs in a fresh context), so every runner sharing the runtime shares
 * them. Workers are started on demand up to {@code rcrt.js.workers} (system property; default the
 * number of processors, between 2 and 4), each with a heap of {@code rcrt.js.worker-heap-mb}
 * (default 512), from the class path {@link WorkerLaunch} computes, each on a thread of its own;
 * when the last worker failed or was killed, a replacement starts at once. {@link #close()} kills them all (and each exits by itself
 * when its standard input closes, so none outlives this JVM either). Thread-safe.
 */
final class WorkerPool {
  private static final Logger LOG = LoggerFactory.getLogger(WorkerPool.class);
  /** The longest a worker may take to start; a cold JVM on a busy machine needs a few seconds. */
  static final Duration STARTUP = Duration.ofSeconds(60);

  private final int max;
  private final int heapMegabytes;
  private final WorkerLaunch launch;
  private final Deque<WorkerProcess> idle = new ArrayDeque<>();
  /** Every worker started and not yet gone, idle or busy: what {@link #close()} kills. */
  private final Set<WorkerProcess> started = new HashSet<>();
  private int live;
  /** Starts in flight, and calls waiting for one of them. */
  private int starting;
  private int waitingForStart;
  /** How many starts failed, and why the last one did: what a call that waited for a start is told. */
  private long startFailures;
  private String startFailure = "";
  private boolean closed;

  WorkerPool(int max, int heapMegabytes, WorkerLaunch launch) {
    this.max = Math.max(1, max);
    this.heapMegabytes = heapMegabytes;
    this.launch = launch;
  }

  /** A pool sized by the {@code rcrt.js.workers} and {@code rcrt.js.worker-heap-mb} system properties. */
  static WorkerPool configured() {
    return new WorkerPool(
        Integer.getInteger("rcrt.js.workers", Math.max(2, Math.min(4, Runtime.getRuntime().availableProcessors()))),
        Integer.getInteger("rcrt.js.worker-heap-mb", 512),
        WorkerLaunch.ofThisRuntime());
  }

  int heapMegabytes() {
    return heapMegabytes;
  }

  /** Starts one worker in the background when none exists yet, so the first call finds it up. */
  void prewarm() {
    synchronized (this) {
      if (live == 0 && !closed) {
        startInBackground();
      }
    }
  }

  /**
   * Counts one more worker as live and starting, and starts it on a thread of its own, which hands it
   * to the idle ones (and so to a waiting call) once it is up. The caller holds this pool's lock.
   */
  private void startInBackground() {
    live++;
    starting++;
    Thread starter = new Thread(this::startOne, "rcrt-js-worker-start");
    starter.setDaemon(true);
    starter.start();
  }

  private void startOne() {
    WorkerProcess worker;
    try {
      worker = started(WorkerProcess.start(heapMegabytes, STARTUP, launch.arguments()));
    } catch (IOException | ToolException e) {
      if (e instanceof IOException) {
        LOG.warn("a JavaScript worker did not start: {}", e.getMessage());
      }
      synchronized (this) {
        starting--;
        startFailures++;
        startFailure = String.valueOf(e.getMessage());
        gone();
      }
      return;
    }
    synchronized (this) {
      starting--;
      if (idled(worker)) {
        return;
      }
    }
    discard(worker);
  }

  /**
   * A worker for one call: an idle one, else the next one up within {@code wait}: a worker another
   * call released, or one this pool starts while fewer than the maximum run. Waiting for a worker to
   * start is waiting like any other: a call whose {@code wait} ends first times out, and the worker
   * goes on starting for the next call.
   *
   * @throws ToolException {@code tool_failed} when the worker this call waited for could not start
   *     (why attached), or {@code tool_timeout} when no worker was free or up within {@code wait}
   */
  WorkerProcess acquire(String tool, Duration wait) {
    long deadline = System.nanoTime() + wait.toNanos();
    synchronized (this) {
      long failuresBefore = startFailures;
      boolean waitedForStart = false;
      while (true) {
        if (closed) {
          throw new ToolException(ToolErrorCode.TOOL_FAILED, "tool '" + tool + "' was not run: its JavaScript runtime is closed (its tool runner was closed)");
        }
        WorkerProcess w;
        while ((w = idle.pollFirst()) != null) {
          if (w.alive()) {
            return w;
          }
          live--;
        }
        if (waitedForStart && startFailures != failuresBefore && starting == 0) {
          throw new ToolException(ToolErrorCode.TOOL_FAILED, "tool '" + tool + "': the JavaScript worker process could not start: " + startFailure);
        }
        // a worker already starting and not yet claimed by a waiting call is this call's; only
        // without one is another started (on a small machine two JVMs starting at once each take
        // twice as long)
        if (starting <= waitingForStart && live < max) {
          startInBackground();
        }
        boolean forStart = starting > waitingForStart;
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new ToolException(
              ToolErrorCode.TOOL_TIMEOUT,
              waitedForStart || forStart
                  ? "tool '" + tool + "' waited " + wait.toMillis() + " ms for a JavaScript worker to start (a worker JVM takes a second or more to start, longer on a loaded machine; it goes on starting for the next call)"
                  : "tool '" + tool + "' waited " + wait.toMillis() + " ms and all " + max + " JavaScript workers stayed busy (rcrt.js.workers)");
        }
        if (forStart) {
          waitingForStart++;
          waitedForStart = true;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(this, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new ToolException(ToolErrorCode.TOOL_FAILED, "tool '" + tool + "' was interrupted while waiting for a JavaScript worker");
        } finally {
          if (forStart) {
            waitingForStart--;
          }
        }
      }
    }
  }

  /**
   * As {@link #acquire}, except that when every worker is up and busy with a call (none idle, none
   * starting for a caller, no room to start one) it returns null at once instead of waiting for a
   * busy one: for work that can be left to the next call (evaluating a tool's module ahead of it).
   */
  @Nullable WorkerProcess acquireUnlessAllBusy(String tool, Duration wait) {
    synchronized (this) {
      boolean someIdle = idle.stream().anyMatch(WorkerProcess::alive);
      if (!closed && !someIdle && starting <= waitingForStart && live >= max) {
        return null;
      }
    }
    return acquire(tool, wait);
  }

  /** Keeps track of a new worker; one started while the pool closed is killed at once. */
  private WorkerProcess started(WorkerProcess worker) {
    synchronized (this) {
      if (!closed) {
        started.add(worker);
        return worker;
      }
    }
    worker.kill();
    throw new ToolException(ToolErrorCode.TOOL_FAILED, "the JavaScript runtime was closed while a worker started");
  }

  /** Returns a worker after a call that ended normally. */
  void release(WorkerProcess worker) {
    synchronized (this) {
      if (idled(worker)) {
        return;
      }
    }
    discard(worker);
  }

  /** Makes a live worker idle and wakes the calls waiting for one; false when it died or the pool closed. */
  private boolean idled(WorkerProcess worker) {
    if (!worker.alive() || closed) {
      return false;
    }
    idle.addFirst(worker);
    notifyAll();
    return true;
  }

  /** Kills every worker, idle or busy (their calls fail), and starts no more. Idempotent. */
  void close() {
    List<WorkerProcess> all;
    synchronized (this) {
      closed = true;
      all = List.copyOf(started);
      started.clear();
      idle.clear();
      notifyAll();
    }
    all.forEach(WorkerProcess::kill);
    launch.close();
  }

  /** Kills a worker whose call did not end normally (timed out, broke the protocol, died). */
  void discard(@Nullable WorkerProcess worker) {
    if (worker != null) {
      worker.kill();
    }
    synchronized (this) {
      if (worker != null) {
        started.remove(worker);
      }
      gone();
      if (live == 0 && !closed) {
        startInBackground(); // the next call waits for less than a whole start
      }
    }
  }

  private synchronized void gone() {
    live--;
    notifyAll();
  }
}
