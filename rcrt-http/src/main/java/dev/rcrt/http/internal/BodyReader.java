package dev.rcrt.http.internal;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one request's body as it arrives, with the servlet API's non-blocking reads: no thread waits
 * for a client that sends slowly. What follows the body is {@link Done}'s, on one of the container's
 * threads; a client that takes longer than {@code timeout} (since {@link #start}, or sends nothing
 * for the connection's idle timeout) is answered 408 and its connection closed.
 *
 * <p>Up to {@code keep} bytes are kept; past that the rest is read and thrown away, so that the
 * client reads the answer, and {@link Done} gets null. A client that says (by its {@code
 * Content-Length}) or shows (by what it sends) that its body is more than {@link #DISCARDED} bytes
 * past what is kept is answered 413 at once, and its connection closed. A caller that answered the
 * request already (a refusal from its head) passes no 413 message: its answer is kept whatever the
 * body does, and the body is read only to be thrown away.
 */
public final class BodyReader implements ReadListener, AsyncListener {
  private static final Logger LOG = LoggerFactory.getLogger(BodyReader.class);

  /** The most bytes read and thrown away past what is kept: 8 MiB. */
  public static final long DISCARDED = 8L * 1024 * 1024;

  /** What follows a body read whole. */
  @FunctionalInterface
  public interface Done {
    /**
     * Called once, on a container thread, when the whole body is in; must end the asynchronous
     * request ({@link AsyncContext#complete} or {@link AsyncContext#dispatch}).
     *
     * @param body the body, or null when it was larger than what is kept
     */
    void read(byte @Nullable [] body);
  }

  private final AsyncContext async;
  private final HttpServletRequest request;
  private final HttpServletResponse response;
  private final String what;
  private final ErrorBody errors;
  private final long keep;
  /** The 413's message; null when the caller answered already, so that nothing here replaces its answer. */
  private final @Nullable String tooLarge;
  private final long timeoutMillis;
  private final Done done;
  private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
  private final AtomicBoolean ended = new AtomicBoolean();
  private long read;

  private BodyReader(AsyncContext async, HttpServletRequest request, HttpServletResponse response, String what, ErrorBody errors, long keep,
      @Nullable String tooLarge, long timeoutMillis, Done done) {
    this.async = async;
    this.request = request;
    this.response = response;
    this.what = what;
    this.errors = errors;
    this.keep = keep;
    this.tooLarge = tooLarge;
    this.timeoutMillis = timeoutMillis;
    this.done = done;
  }

  /**
   * Reads the request's body in an asynchronous cycle started here, or, for a body declared more
   * than {@link #DISCARDED} bytes past {@code keep}, answers 413 now (unless {@code tooLarge} is
   * null) and closes the connection without reading it; {@code done} is then not called.
   *
   * @param what the server, for the log, such as {@code "A2A"}
   * @param errors the body of the 408 and 413 answers
   * @param keep the most bytes kept, at least 0 (0: the body is read and thrown away)
   * @param tooLarge the 413's message, such as {@code "the body is larger than 4096 bytes"}; null
   *     when the request is answered already: no 408 or 413 replaces that answer
   * @param timeout how long the client may take to send the body; positive
   */
  public static void start(HttpServletRequest request, HttpServletResponse response, String what, ErrorBody errors, long keep,
      @Nullable String tooLarge, Duration timeout, Done done) {
    if (request.getContentLengthLong() > keep + DISCARDED) {
      response.setHeader("Connection", "close"); // the rest of the body is not read
      if (tooLarge != null) {
        answer(response, errors, 413, tooLarge);
      }
      return;
    }
    AsyncContext async = request.startAsync(request, response);
    long timeoutMillis = Math.max(1, timeout.toMillis());
    async.setTimeout(timeoutMillis);
    BodyReader reader = new BodyReader(async, request, response, what, errors, keep, tooLarge, timeoutMillis, done);
    async.addListener(reader);
    try {
      request.getInputStream().setReadListener(reader);
    } catch (IOException | IllegalStateException e) {
      reader.end();
    }
  }

  /** Whether the request says a body follows: a positive {@code Content-Length}, or chunks. */
  public static boolean hasBody(HttpServletRequest request) {
    return request.getContentLengthLong() > 0 || request.getHeader("Transfer-Encoding") != null;
  }

  /**
   * Answers {@code status} with {@code errors}' body, replacing whatever was buffered; does nothing
   * once the response is committed.
   */
  public static void answer(HttpServletResponse response, ErrorBody errors, int status, String message) {
    if (response.isCommitted()) {
      return;
    }
    try {
      response.resetBuffer();
      response.setStatus(status);
      response.setContentType("application/json");
      response.setCharacterEncoding("UTF-8");
      response.setHeader("Cache-Control", "no-store");
      byte[] bytes = errors.json(status, message).getBytes(StandardCharsets.UTF_8);
      response.setContentLength(bytes.length);
      response.getOutputStream().write(bytes);
    } catch (IOException | IllegalStateException e) {
      // the client went away
    }
  }

  @Override
  public void onDataAvailable() throws IOException {
    ServletInputStream in = request.getInputStream();
    byte[] chunk = new byte[8192];
    while (!ended.get() && in.isReady()) {
      int n = in.read(chunk);
      if (n < 0) {
        return; // onAllDataRead follows
      }
      kept.write(chunk, 0, (int) Math.max(0, Math.min(n, keep + 1 - read))); // one byte past keep tells that it was passed
      read += n;
      if (read > keep + DISCARDED) {
        if (ended.compareAndSet(false, true)) {
          response.setHeader("Connection", "close");
          if (tooLarge != null) {
            answer(response, errors, 413, tooLarge);
          }
          async.complete();
        }
        return;
      }
    }
  }

  @Override
  public void onAllDataRead() {
    if (ended.compareAndSet(false, true)) {
      async.setTimeout(0); // the request is in: what follows takes what it takes
      done.read(read > keep ? null : kept.toByteArray());
    }
  }

  @Override
  public void onError(Throwable t) {
    if (t instanceof java.net.SocketTimeoutException) { // the client sent nothing for the connection's idle timeout
      timedOut();
      return;
    }
    LOG.debug("{}: reading a request body failed: {}", what, t.toString());
    end();
  }

  @Override
  public void onTimeout(AsyncEvent event) {
    timedOut();
  }

  /** Answers 408 (unless the caller answered already) and closes the connection, unless the body is in. */
  private void timedOut() {
    if (ended.compareAndSet(false, true)) {
      LOG.debug("{}: a client took more than {} ms to send its request; its connection is closed", what, timeoutMillis);
      response.setHeader("Connection", "close");
      if (tooLarge != null) {
        answer(response, errors, 408, "the request was not sent within " + timeoutMillis + " ms");
      }
      async.complete();
    }
  }

  @Override
  public void onError(AsyncEvent event) {
    end();
  }

  @Override
  public void onComplete(AsyncEvent event) {}

  @Override
  public void onStartAsync(AsyncEvent event) {}

  /** Ends the exchange as it stands, closing the connection. */
  private void end() {
    if (ended.compareAndSet(false, true)) {
      response.setHeader("Connection", "close");
      async.complete();
    }
  }
}
