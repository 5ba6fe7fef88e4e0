package dev.rcrt.agent.internal.openai;

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
 * The lines of a response body, read by a daemon thread of their own so that the reader can stop
 * waiting at any moment: a body that stalls, or trickles, cannot hold the caller past its
 * deadline. Every line and the whole body are capped, so a line without an end, or an endless body,
 * fails as soon as it passes the cap instead of filling the heap. {@link #close()} closes the body,
 * which ends the reading thread. Not thread-safe: one consumer.
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
  private final BlockingQueue<Object> lines = new ArrayBlockingQueue<>(256);
  private final Thread reader;
  private boolean ended;

  /**
   * @param maxBytes the most bytes the whole body may have; a line is capped by the same number
   */
  public BoundedLines(InputStream body, long maxBytes) {
    this.body = body;
    this.reader = new Thread(() -> read(maxBytes), "rcrt-llm-body");
    reader.setDaemon(true);
    reader.start();
  }

  private void read(long maxBytes) {
    long total = 0;
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    byte[] buffer = new byte[8192];
    try {
      int n;
      while ((n = body.read(buffer)) >= 0) {
        total += n;
        if (total > maxBytes) {
          offer(new Failure(Failure.Kind.TOO_LARGE, "the response is larger than " + maxBytes + " bytes"));
          return;
        }
        for (int i = 0; i < n; i++) {
          byte b = buffer[i];
          if (b == '\n') {
            offer(text(line));
            line.reset();
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
        offer(new Failure(Failure.Kind.BROKEN, "the response broke off: " + e.getMessage()));
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
