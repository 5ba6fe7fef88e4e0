package dev.rcrt.tools.internal.loader.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import dev.rcrt.core.spi.Excerpts;
import dev.rcrt.core.spi.MediaTypes;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.internal.CallScope;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * One JSON exchange with a tool endpoint (an HTTP tool or a container's server): send the input,
 * require a 2xx JSON answer, and say exactly what was wrong otherwise: the status with a short body
 * excerpt, a wrong content type, a body that is not JSON, a timeout, a refused connection.
 */
public final class JsonHttp {
  private JsonHttp() {}

  /**
   * Sends {@code body} (null for none) and returns the JSON answer, within the call's remaining
   * time (the whole exchange, body included, see {@link BoundedBody}).
   *
   * @param what names the tool in messages, e.g. {@code "tool 'weather'"}
   * @throws ToolException as {@link #send}, or a failed answer (status, content type, not JSON)
   *     whose code {@link #retriable} reads; pass it through {@link #settled} before it leaves the
   *     loader
   */
  public static JsonNode exchange(
      HttpClient http, String what, String method, URI uri, Map<String, String> headers,
      @org.jspecify.annotations.Nullable JsonNode body, CallScope scope, long maxBytes) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri)
            .header("Accept", "application/json")
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(RcrtJson.write(body)));
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    headers.forEach(request::header);
    HttpResponse<byte[]> exchanged = send(http, what, request.build(), scope, maxBytes);
    String text = new String(exchanged.body(), java.nio.charset.StandardCharsets.UTF_8);
    int status = exchanged.statusCode();
    if (status < 200 || status > 299) {
      String code = status == 429 || status >= 500 ? RETRIABLE_FAILURE : ToolErrorCode.TOOL_FAILED.code();
      throw new ToolException(code, what + " endpoint " + uri + " answered HTTP " + status + ": " + Excerpts.of(text));
    }
    String type = exchanged.headers().firstValue("Content-Type").orElse("").toLowerCase(Locale.ROOT);
    if (!MediaTypes.isJson(type)) {
      throw new ToolException(
          ToolErrorCode.TOOL_FAILED,
          what + " endpoint " + uri + " answered Content-Type '" + (type.isEmpty() ? "(none)" : type)
              + "', expected application/json: " + Excerpts.of(text));
    }
    if (text.isBlank()) {
      throw new ToolException(ToolErrorCode.TOOL_FAILED, what + " endpoint " + uri + " answered an empty body; expected JSON");
    }
    try {
      return RcrtJson.parse(text);
    } catch (ValidationException e) {
      throw new ToolException(
          ToolErrorCode.TOOL_FAILED, what + " endpoint " + uri + " answered a body that is " + e.getMessage() + ": " + Excerpts.of(text));
    }
  }

  /**
   * Sends {@code request} and reads its whole response, body included, within the call's remaining
   * time and {@code maxBytes}.
   *
   * @throws ToolException {@code tool_timeout} at the deadline, {@code tool_too_large} past the cap
   *     (nothing more is read), {@code tool_unreachable} when the connection could not be made or
   *     broke before the answer, {@code tool_failed} when the calling thread is interrupted
   */
  public static HttpResponse<byte[]> send(HttpClient http, String what, HttpRequest request, CallScope scope, long maxBytes) {
    return send(http, what, request, scope, maxBytes, scope.remaining(), null);
  }

  /**
   * {@link #send(HttpClient, String, HttpRequest, CallScope, long)} within at most {@code within} of
   * the call's remaining time; a body of server-sent events is read only up to the first event
   * {@code stopAt} accepts, when it is not null ({@link BoundedBody}).
   */
  public static HttpResponse<byte[]> send(HttpClient http, String what, HttpRequest request, CallScope scope, long maxBytes, Duration within,
      java.util.function.@org.jspecify.annotations.Nullable Predicate<String> stopAt) {
    URI uri = request.uri();
    Duration remaining = scope.remaining();
    Duration timeout = within.compareTo(remaining) < 0 ? within : remaining;
    if (timeout.isZero() || timeout.isNegative()) {
      throw new ToolException(ToolErrorCode.TOOL_TIMEOUT, what + " timed out after " + scope.limit().toMillis() + " ms before calling " + uri);
    }
    try {
      return BoundedBody.send(http, request, timeout, maxBytes, stopAt);
    } catch (BoundedBody.Failure f) {
      throw switch (f.kind()) {
        case TIMEOUT -> new ToolException(
            ToolErrorCode.TOOL_TIMEOUT, what + " timed out after " + (timeout.equals(remaining) ? scope.limit() : timeout).toMillis()
                + " ms waiting for " + uri + " (" + f.getMessage() + ")");
        case TOO_LARGE -> new ToolException(
            ToolErrorCode.TOOL_TOO_LARGE, what + " endpoint " + uri + " answered more than " + maxBytes + " bytes; nothing past the limit was read"
                + " (raise limits.max_response_bytes if the answer is meant to be that large)");
        case INTERRUPTED -> new ToolException(ToolErrorCode.TOOL_FAILED, what + " was interrupted while calling " + uri);
        case IO -> new ToolException(UNREACHABLE, what + " could not reach " + uri + ": " + f.getMessage(), f.getCause());
      };
    }
  }

  /** Internal code: answered 429 or 5xx. Never recorded; see {@link #settled}. */
  private static final String RETRIABLE_FAILURE = "tool_failed_retriable";
  /** The connection could not be made or broke before the answer: a public code ({@link ToolException}). */
  private static final String UNREACHABLE = ToolErrorCode.TOOL_UNREACHABLE.code();

  /** Whether the failure may be cured by a retry: unreachable, 429 or 5xx. */
  public static boolean retriable(ToolException e) {
    return RETRIABLE_FAILURE.equals(e.code()) || UNREACHABLE.equals(e.code());
  }

  /** The failure with a public code: an answer of 429 or 5xx becomes {@code tool_failed}. */
  public static ToolException settled(ToolException e) {
    return RETRIABLE_FAILURE.equals(e.code()) ? new ToolException(ToolErrorCode.TOOL_FAILED, e.getMessage(), e.getCause()) : e;
  }

}
