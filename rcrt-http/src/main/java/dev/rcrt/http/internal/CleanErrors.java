package dev.rcrt.http.internal;

import jakarta.servlet.RequestDispatcher;
import java.io.IOException;
import java.io.Writer;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;
import org.apache.coyote.ActionCode;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tomcat's error report, as the SDK writes it: an error answer that has no body yet (one Tomcat
 * raises itself, such as a request it cannot parse, or a servlet's {@code sendError} or exception)
 * gets {@link ErrorBody}'s JSON with a fixed message for its status, and, for a 5xx, a reference to
 * the DEBUG log line that keeps the exception. Never the exception's class, message or stack, nor
 * the server's name and version, which Tomcat's own page shows.
 */
public final class CleanErrors extends ErrorReportValve {
  private static final Logger LOG = LoggerFactory.getLogger(CleanErrors.class);

  private final ErrorBody errors;

  CleanErrors(ErrorBody errors) {
    this.errors = errors;
    setShowReport(false);
    setShowServerInfo(false);
  }

  @Override
  protected void report(Request request, Response response, @Nullable Throwable throwable) {
    int status = response.getStatus();
    if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
      return;
    }
    AtomicBoolean ioAllowed = new AtomicBoolean(false);
    response.getCoyoteResponse().action(ActionCode.IS_IO_ALLOWED, ioAllowed);
    if (!ioAllowed.get()) {
      return;
    }
    Throwable cause = throwable != null ? throwable : (Throwable) request.getAttribute(RequestDispatcher.ERROR_EXCEPTION);
    String message = message(status);
    if (status >= 500) {
      String ref = UUID.randomUUID().toString().substring(0, 8);
      LOG.debug("HTTP {} answered for {} {} (ref {})", status, request.getMethod(), request.getRequestURI(), ref, cause);
      message += " (ref " + ref + "; the server's DEBUG log has the details)";
    }
    try {
      response.setContentType("application/json");
      response.setCharacterEncoding("UTF-8");
      Writer writer = response.getReporter();
      if (writer != null) {
        writer.write(errors.json(status, message));
        response.finishResponse();
      }
    } catch (IOException | IllegalStateException e) {
      // the client went away: nothing to tell it
    }
  }

  /** What an error status means, in the server's words. */
  static String message(int status) {
    return switch (status) {
      case 400 -> "Bad Request: this is not an HTTP/1.1 request the server can read (its request line, a header or its framing)";
      case 404 -> "Not Found";
      case 405 -> "Method Not Allowed";
      case 408 -> "Request Timeout: the request was not sent in time";
      case 411 -> "Length Required";
      case 413 -> "Content Too Large";
      case 414 -> "URI Too Long";
      case 417 -> "Expectation Failed";
      case 431 -> "Request Header Fields Too Large";
      case 501 -> "Not Implemented: the server does not support this method or transfer coding";
      case 503 -> "Service Unavailable: try again shortly";
      case 505 -> "HTTP Version Not Supported";
      default -> status >= 500 ? "the server failed to answer" : "the request was refused (HTTP " + status + ")";
    };
  }
}
