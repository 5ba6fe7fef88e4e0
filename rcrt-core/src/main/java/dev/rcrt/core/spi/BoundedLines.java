package dev.rcrt.core.spi;

import dev.rcrt.core.TimeSource;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The lines of a stream (a response body, a worker process's output), read by a daemon thread of
 * their own so that the reader can stop waiting at any moment: a stream that stalls, or trickles,
 * cannot hold the caller past its deadline. Every line and the whole stream are capped, so a line
 * without an end, or an endless stream, fails as soon as it passes its cap instead of filling the
 * heap. {@link #close()} closes the stream, which ends the reading thread. Not thread-safe: one
 * consumer.
 */
public final class BoundedLines implements AutoCloseable {
  /** What {@link #next} may report. */
  public static final class Failure extends Exception {
    private static final long serialVersionUID = 1L;

    /** The kinds of failure. */
    public enum Kind { WAITED_TOO_LONG, TOO_LARGE, BROKEN }

    private final Kind kind;

    Failure(Kind kind, String message) {
      super(message);
      this.kind = kind;
    }

    public Kind kind() {
      return kind;
    }
  }

  private static final Object END = new Object();
  private final InputStream body;
  private final String what;
  private final BlockingQueue<Object> lines = new ArrayBlockingQueue<>(256);
  private final Thread reader;
  private boolean ended;

  /**
   * A body read whole: a line is capped by the same number as the whole.
   *
   * @param maxBytes the most bytes the whole body may have
   */
  public BoundedLines(InputStream body, long maxBytes) {
    this(body, maxBytes, maxBytes, "the response", "rcrt-body");
  }

  /**
   * @param maxLineBytes the most bytes one line may have
   * @param maxBytes the most bytes the whole stream may have ({@link Long#MAX_VALUE} for a stream
   *     that lives long, whose lines alone are capped)
   * @param what the stream in error messages, such as {@code "the response"}
   * @param threadName the reading thread's name
   */
  public BoundedLines(InputStream body, long maxLineBytes, long maxBytes, String what, String threadName) {
    this.body = body;
    this.what = what;
    this.reader = new Thread(() -> read(maxLineBytes, maxBytes), threadName);
    reader.setDaemon(true);
    reader.start();
  }

  private void read(long maxLineBytes, long maxBytes) {
    long total = 0;
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    byte[] buffer = new byte[8192];
    try {
      int n;
      while ((n = body.read(buffer)) >= 0) {
        total += n;
        if (total > maxBytes) {
          offer(new Failure(Failure.Kind.TOO_LARGE, what + " is larger than " + maxBytes + " bytes"));
          return;
        }
        for (int i = 0; i < n; i++) {
          byte b = buffer[i];
          if (b == '\n') {
            offer(text(line));
            line.reset();
          } else if (line.size() >= maxLineBytes) {
            offer(new Failure(Failure.Kind.TOO_LARGE, "a line of " + what + " is longer than " + maxLineBytes + " bytes"));
            return;
          } else {
            line.write(b);
          }
        }
      }
      if (line.size() > 0) {
        offer(text(line));
      }
      offer(END);
    } catch (IOException e) {
      try {
        offer(new Failure(Failure.Kind.BROKEN, what + " broke off: " + e.getMessage()));
      } catch (InterruptedException closed) {
        // the consumer is gone
      }
    } catch (InterruptedException e) {
      // closed by the consumer
    }
  }

  private static String text(ByteArrayOutputStream line) {
    String s = line.toString(StandardCharsets.UTF_8);
    return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
  }

  private void offer(Object item) throws InterruptedException {
    lines.put(item);
  }

  /**
   * The next line, waiting at most {@code wait}.
   *
   * @return the line without its end, or null at the end of the body
   * @throws Failure {@code WAITED_TOO_LONG} when no line came in time, {@code TOO_LARGE} past the
   *     cap, {@code BROKEN} when the connection failed
   */
  public @Nullable String next(Duration wait) throws Failure, InterruptedException {
    if (ended) {
      return null;
    }
    Object item = lines.poll(Math.max(0, wait.toNanos()), TimeUnit.NANOSECONDS);
    if (item == null) {
      throw new Failure(Failure.Kind.WAITED_TOO_LONG, "no data within " + wait.toMillis() + " ms");
    }
    return item(item);
  }

  /**
   * The next line, waiting at most {@code wait} measured on {@code time}: with a test clock the
   * wait ends when the test moves the clock past it, not after real time.
   *
   * @return the line without its end, or null at the end of the body
   * @throws Failure as {@link #next(Duration)}
   */
  public @Nullable String next(Duration wait, TimeSource time) throws Failure, InterruptedException {
    if (ended) {
      return null;
    }
    Deadline mine = new Deadline();
    TimeSource.Timer timer = time.schedule(wait, () -> {
      mine.passed = true;
      lines.offer(mine); // wakes the consumer; a full queue has lines to take first, and the flag is read after each
    });
    try {
      while (true) {
        Object item = mine.passed && lines.isEmpty() ? mine : lines.take();
        if (item == mine) {
          throw new Failure(Failure.Kind.WAITED_TOO_LONG, "no data within " + wait.toMillis() + " ms");
        }
        if (!(item instanceof Deadline)) { // an earlier call's deadline that fired as its line arrived
          return item(item);
        }
      }
    } finally {
      timer.cancel();
    }
  }

  /** The deadline of one {@link #next(Duration, TimeSource)}. */
  private static final class Deadline {
    volatile boolean passed;
  }

  private @Nullable String item(Object item) throws Failure {
    if (item == END) {
      ended = true;
      return null;
    }
    if (item instanceof Failure f) {
      ended = true;
      throw f;
    }
    return (String) item;
  }

  @Override
  public void close() {
    reader.interrupt();
    try {
      body.close();
    } catch (IOException e) {
      // the body is being abandoned either way
    }
  }
}
