package dev.rcrt.http.internal;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A servlet that reads each request's body whole, without holding a thread, before it serves the
 * request: so a client that sends its body slowly, or never finishes it, costs a connection and no
 * thread, and is answered {@code 408} when {@code timeout} has passed since its request arrived.
 *
 * <p>Each request goes through {@link Handler#head} first, with its line and headers: it answers a
 * request it refuses or can serve without a body (then whatever body comes is read and thrown away
 * before the exchange ends, so that the client can read the answer), or returns what serves the
 * request with its body ({@link Body}). That body is kept up to {@code maxBody} bytes; past that the
 * rest is thrown away and {@link Body#serve} gets null (the endpoint answers 413). A client that
 * sends more than {@link #DISCARDED} bytes past what is kept is answered {@code 413} at once, and its
 * connection closed.
 *
 * <p>{@link Body#serve} runs on one of Tomcat's request threads, which it may hold as long as it
 * serves (a stream, for instance), writing with blocking writes. A failure it lets through is a 500
 * that names only a reference to its log line. Thread-safe.
 */
public final class BodyFirst extends HttpServlet {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(BodyFirst.class);

  /** The most bytes read and thrown away past what is kept: 8 MiB. */
  static final long DISCARDED = 8L * 1024 * 1024;

  /** What an endpoint does with a request. */
  public interface Handler {
    /**
     * Looks at a request before its body is read.
     *
     * @return null when this method answered the request (a refusal, a request without a body), or
     *     what serves it once its body is in
     */
    @Nullable Body head(HttpServletRequest request, HttpServletResponse response) throws IOException;
  }

  /** What serves a request with its body. */
  @FunctionalInterface
  public interface Body {
    /**
     * @param body the whole body (empty when none), or null when it was larger than the servlet's
     *     {@code maxBody}
     */
    void serve(byte @Nullable [] body) throws IOException;
  }

  private final transient Handler handler;
  private final transient ErrorBody errors;
  private final int maxBody;
  private final long timeoutMillis;
  private final String what;

  /**
   * @param what the server, for its log lines, such as {@code "A2A"}
   * @param maxBody the most bytes of a body kept, at least 0
   * @param timeout how long a client may take to send its request's body; positive
   */
  public BodyFirst(String what, Handler handler, ErrorBody errors, int maxBody, Duration timeout) {
    this.what = what;
    this.handler = handler;
    this.errors = errors;
    this.maxBody = maxBody;
    this.timeoutMillis = Math.max(1, timeout.toMillis());
  }

  @Override
  protected void service(HttpServletRequest request, HttpServletResponse response) {
    Body body;
    try {
      body = handler.head(request, response);
    } catch (Throwable t) {
      failed(response, t);
      return;
    }
    if (!hasBody(request)) {
      if (body != null) {
        serve(body, new byte[0], response);
      }
      return;
    }
    if (request.getContentLengthLong() > maxBody + DISCARDED) {
      tooLarge(request, response, body == null);
      return;
    }
    AsyncContext async = request.startAsync();
    async.setTimeout(timeoutMillis);
    Reader reader = new Reader(async, request, response, body);
    async.addListener(reader);
    try {
      request.getInputStream().setReadListener(reader);
    } catch (IOException | IllegalStateException e) {
      reader.end();
    }
  }

  /** Whether the request says a body follows: a positive {@code Content-Length}, or chunks. */
  private static boolean hasBody(HttpServletRequest request) {
    return request.getContentLengthLong() > 0 || request.getHeader("Transfer-Encoding") != null;
  }

  private void serve(Body body, byte @Nullable [] bytes, HttpServletResponse response) {
    try {
      body.serve(bytes);
    } catch (IOException e) {
      LOG.debug("{} exchange broke: {}", what, e.toString());
    } catch (Throwable t) {
      failed(response, t);
    }
  }

  /** A failure of the server: logged with a reference, answered 500 with only that reference when nothing was sent yet. */
  private void failed(HttpServletResponse response, Throwable t) {
    dev.rcrt.core.spi.Throwables.rethrowIfFatal(t);
    String ref = UUID.randomUUID().toString().substring(0, 8);
    LOG.error("{} request failed (ref {})", what, ref, t);
    if (!response.isCommitted()) {
      answer(response, 500, "the " + what + " server failed (ref " + ref + "; its log has the details)");
    }
  }

  /** Answers 413 now, or keeps the head's answer, and closes the connection after it: the rest of the body is not read. */
  private void tooLarge(HttpServletRequest request, HttpServletResponse response, boolean answered) {
    response.setHeader("Connection", "close");
    if (!answered && !response.isCommitted()) {
      answer(response, 413, "the body is larger than " + maxBody + " bytes");
    }
  }

  /** Answers {@code status} with the endpoint's error body. */
  private void answer(HttpServletResponse response, int status, String message) {
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

  /** Reads one body as it arrives, then serves the request; times it out. */
  private final class Reader implements ReadListener, AsyncListener {
    private final AsyncContext async;
    private final HttpServletRequest request;
    private final HttpServletResponse response;
    private final @Nullable Body body;
    private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
    private final AtomicBoolean ended = new AtomicBoolean();
    private long read;

    Reader(AsyncContext async, HttpServletRequest request, HttpServletResponse response, @Nullable Body body) {
      this.async = async;
      this.request = request;
      this.response = response;
      this.body = body;
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
        long keep = body == null ? 0 : Math.max(0, Math.min(n, maxBody + 1L - read));
        kept.write(chunk, 0, (int) keep);
        read += n;
        if (read > maxBody + DISCARDED) {
          if (ended.compareAndSet(false, true)) {
            tooLarge(request, response, body == null);
            async.complete();
          }
          return;
        }
      }
    }

    @Override
    public void onAllDataRead() {
      if (!ended.compareAndSet(false, true)) {
        return;
      }
      async.setTimeout(0); // the request is in: serving it takes what it takes
      try {
        if (body != null) {
          serve(body, read > maxBody ? null : kept.toByteArray(), response);
        }
      } finally {
        async.complete();
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

    /** Answers 408 and closes the connection, unless the exchange ended. */
    private void timedOut() {
      if (ended.compareAndSet(false, true)) {
        LOG.debug("{}: a client took more than {} ms to send its request; its connection is closed", what, timeoutMillis);
        response.setHeader("Connection", "close");
        if (!response.isCommitted()) {
          answer(response, 408, "the request was not sent within " + timeoutMillis + " ms");
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

    /** Ends the exchange as it stands. */
    void end() {
      if (ended.compareAndSet(false, true)) {
        response.setHeader("Connection", "close");
        async.complete();
      }
    }
  }
}
