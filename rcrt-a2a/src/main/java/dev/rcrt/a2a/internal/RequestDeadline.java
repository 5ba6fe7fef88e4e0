package dev.rcrt.a2a.internal;

import dev.rcrt.core.TimeSource;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How long a client may take to send its request (the request line, the headers and the body), and
 * to take in each piece of a streamed answer ({@link #write}), for
 * the JDK's HTTP server, which has no such limit of its own: it reads a request on a thread of its
 * executor, and clients that send a byte now and then (slowloris) would hold every thread of the
 * pool, locking everyone else out. This executor runs each exchange the server hands it on {@code
 * threads} with a deadline on {@code time}; an exchange still reading its request at the deadline
 * is cut off: its thread is interrupted, which closes the connection (the JDK reads it through an
 * interruptible channel), and the thread is free again. Once the handler has the whole request
 * ({@link #received()}), the exchange is the server's to answer, however long that takes.
 *
 * <p>Thread-safe. The pool stays its owner's; the deadlines are timers of {@code time}.
 */
public final class RequestDeadline implements Executor {
  private static final Logger LOG = LoggerFactory.getLogger(RequestDeadline.class);
  private static final int READING = 0;
  private static final int RECEIVED = 1;
  private static final int CUT = 2;

  /** The state of the exchange this thread runs, if any. */
  private static final ThreadLocal<@Nullable AtomicInteger> CURRENT = new ThreadLocal<>();

  private final Executor threads;
  private final TimeSource time;
  private final Duration limit;

  /**
   * @param threads where exchanges run (the server's pool)
   * @param time the clock of the deadlines
   * @param limit how long a client may take to send a whole request; positive
   */
  public RequestDeadline(Executor threads, TimeSource time, Duration limit) {
    this.threads = Objects.requireNonNull(threads, "threads");
    this.time = Objects.requireNonNull(time, "time");
    if (limit.isNegative() || limit.isZero()) {
      throw new IllegalArgumentException("the request timeout must be positive, found " + limit);
    }
    this.limit = limit;
  }

  @Override
  public void execute(Runnable exchange) {
    threads.execute(() -> {
      AtomicInteger state = new AtomicInteger(READING);
      TimeSource.Timer deadline = cutAtLimit(state, "send its request");
      CURRENT.set(state);
      try {
        exchange.run();
      } finally {
        deadline.cancel();
        CURRENT.remove();
        synchronized (state) { // no cut from now on; one that came is delivered (under this lock): cleared below
          state.compareAndSet(READING, RECEIVED);
        }
        Thread.interrupted(); // a cut that came as the exchange ended must not reach the pool's next task
      }
    });
  }

  /**
   * A timer that, at the limit, cuts the exchange the calling thread runs if {@code state} is still
   * {@code READING} (it becomes {@code CUT}): the thread is interrupted, which closes the
   * connection. {@code what} names what the client was too slow to do, for the log.
   */
  private TimeSource.Timer cutAtLimit(AtomicInteger state, String what) {
    Thread thread = Thread.currentThread();
    return time.schedule(limit, () -> {
      synchronized (state) { // whoever settles the state after this sees the interrupt delivered
        if (state.compareAndSet(READING, CUT)) {
          LOG.debug("an HTTP client took more than {} ms to {}; its connection is closed", limit.toMillis(), what);
          thread.interrupt();
        }
      }
    });
  }

  /** A write of an answer to the client. */
  @FunctionalInterface
  public interface Write {
    void run() throws IOException;
  }

  /**
   * Runs {@code write} (a piece of an answer, such as one server-sent event) within this deadline,
   * on the calling thread: a client that takes longer than the limit to take it in (it reads slowly,
   * or not at all, and the connection's buffers are full) is cut off: the writing thread is
   * interrupted, which closes the connection (the JDK writes through an interruptible channel), and
   * an {@link IOException} is thrown. So a stream's caller, authenticated or not, holds a thread no
   * longer than the limit per event. An interrupt the calling thread already carries does not cut
   * the write: it is set again once the write is done.
   *
   * @throws IOException if the write failed or the client was cut off
   */
  public void write(Write write) throws IOException {
    // an interrupt the caller carries in (a stray one: a Future.cancel(true) that lost the race with
    // the end of the task its thread ran before) would close the connection too: it waits out the write
    boolean interrupted = Thread.interrupted();
    AtomicInteger state = new AtomicInteger(READING);
    TimeSource.Timer deadline = cutAtLimit(state, "read a piece of its answer");
    boolean cut;
    try {
      write.run();
    } finally {
      deadline.cancel();
      synchronized (state) {
        cut = !state.compareAndSet(READING, RECEIVED);
        if (cut) {
          Thread.interrupted(); // the cut's interrupt is this write's, not the caller's
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    if (cut) {
      throw new IOException("the client took more than " + limit.toMillis() + " ms to read its answer; its connection was closed");
    }
  }

  /**
   * Says, on the exchange's thread, that its request has been read in full: no deadline cuts the
   * exchange from now on. Does nothing on a thread that runs no exchange of a {@code RequestDeadline}.
   *
   * @throws IOException if the deadline cut the exchange first (its connection is closed)
   */
  public static void received() throws IOException {
    AtomicInteger state = CURRENT.get();
    if (state != null && !state.compareAndSet(READING, RECEIVED) && state.get() == CUT) {
      throw new IOException("the client took too long to send its request; its connection was closed");
    }
  }
}
