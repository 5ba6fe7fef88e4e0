package dev.rcrt.http.internal;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Duration;
import java.util.UUID;
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
 * sends more than {@link BodyReader#DISCARDED} bytes past what is kept is answered {@code 413} at
 * once, and its connection closed ({@link BodyReader} reads the body); after an answer from the
 * head, that answer stays whatever the body does.
 *
 * <p>{@link Body#serve} runs on one of Tomcat's request threads, which it may hold as long as it
 * serves (a stream, for instance), writing with blocking writes. A failure it lets through is a 500
 * that names only a reference to its log line. Thread-safe.
 */
public final class BodyFirst extends HttpServlet {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(BodyFirst.class);

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
  private final Duration timeout;
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
    this.timeout = timeout;
  }

  @Override
  protected void service(HttpServletRequest request, HttpServletResponse response) {
    Body body;
    try {
      body = handler.head(request, response);
    } catch (IOException e) {
      LOG.debug("{} exchange broke: {}", what, e.toString());
      return;
    } catch (Throwable t) {
      failed(response, t);
      return;
    }
    if (!BodyReader.hasBody(request)) {
      if (body != null) {
        serve(body, new byte[0], response);
      }
      return;
    }
    // a body after an answer from the head is read only to be thrown away, and nothing replaces that answer
    BodyReader.start(request, response, what, errors, body == null ? 0 : maxBody,
        body == null ? null : "the body is larger than " + maxBody + " bytes", timeout, bytes -> {
      try {
        if (body != null) {
          serve(body, bytes, response);
        }
      } finally {
        request.getAsyncContext().complete();
      }
    });
  }

  /** The request's path, decoded, such as {@code /a2a/helper} (the servlet is mapped to every path). */
  public static String path(HttpServletRequest request) {
    String path = request.getPathInfo();
    return path == null ? "/" : path;
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
    BodyReader.answer(response, errors, 500, "the " + what + " server failed (ref " + ref + "; its log has the details)");
  }
}
