package dev.rcrt.serverstore.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.StoreErrorCode;
import dev.rcrt.serverstore.RcrtServerException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * One RCRT server's REST API: requests with the bearer token (fetched again once when the server
 * answers 401, since tokens expire), JSON bodies, and failures turned into {@link
 * RcrtServerException}s that name the call and never the token. Thread-safe.
 */
public final class RestClient {
  /** The longest error text from the server kept in a message. */
  private static final int ERROR_TEXT = 300;

  private final URI base;
  private final HttpClient http;
  private final Duration timeout;
  private final @Nullable Supplier<String> tokens;
  private volatile @Nullable String token;

  /**
   * @param tokens fetches a token ({@code POST /auth/token} or a fixed one); null for a server
   *     with {@code AUTH_MODE=disabled}
   */
  public RestClient(URI base, HttpClient http, Duration timeout, @Nullable Supplier<String> tokens) {
    this.base = base;
    this.http = http;
    this.timeout = timeout;
    this.tokens = tokens;
  }

  /** A status and the body's text. */
  public record Reply(int status, String body) {
    /** The body as JSON. */
    public JsonNode json() {
      return RcrtJson.parse(body);
    }

    /** Whether the status is 2xx. */
    public boolean ok() {
      return status / 100 == 2;
    }
  }

  /**
   * Sends one request.
   *
   * @param path the path and query, such as {@code /breadcrumbs/ID/full}
   * @return the reply, whatever its status (the caller maps the statuses it expects)
   * @throws RcrtServerException {@code store_unavailable} when the server cannot be reached or
   *     times out, {@code store_unauthorized} when it refuses the token even after a fresh one
   */
  public Reply send(String method, String path, @Nullable JsonNode body, Map<String, String> headers) {
    Reply reply = attempt(method, path, body, headers);
    if (reply.status() == 401 && tokens != null) {
      token = null;
      reply = attempt(method, path, body, headers);
    }
    if (reply.status() == 401 || reply.status() == 403) {
      throw new RcrtServerException(
          StoreErrorCode.STORE_UNAUTHORIZED.code(), method + " " + path + ": the RCRT server refused the token (HTTP " + reply.status() + "): " + excerpt(reply.body()), false, null);
    }
    return reply;
  }

  /** A request to stream from, with the current token; for the event stream. */
  public HttpRequest streamRequest(String path) {
    HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).header("Accept", "text/event-stream").GET();
    String t = token();
    if (t != null) {
      b.header("Authorization", "Bearer " + t);
    }
    return b.build();
  }

  /** The HTTP client, shared with the event stream. */
  public HttpClient http() {
    return http;
  }

  /** Forgets the token, so the next request fetches a new one (after the stream was refused). */
  public void forgetToken() {
    token = null;
  }

  private Reply attempt(String method, String path, @Nullable JsonNode body, Map<String, String> headers) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(base.resolve(path))
            .timeout(timeout)
            .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(RcrtJson.write(body)));
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    headers.forEach(b::header);
    String t = token();
    if (t != null) {
      b.header("Authorization", "Bearer " + t);
    }
    try {
      HttpResponse<String> response = http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      return new Reply(response.statusCode(), response.body());
    } catch (IOException e) {
      throw new RcrtServerException(StoreErrorCode.STORE_UNAVAILABLE.code(), method + " " + path + ": the RCRT server at " + base + " could not be reached: " + e, true, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RcrtServerException(StoreErrorCode.STORE_UNAVAILABLE.code(), method + " " + path + ": interrupted", true, e);
    }
  }

  private @Nullable String token() {
    if (tokens == null) {
      return null;
    }
    String t = token;
    if (t == null) {
      t = tokens.get();
      token = t;
    }
    return t;
  }

  /**
   * The failure for a reply the caller did not expect: {@code store_unavailable} for 5xx,
   * {@code store_failed} otherwise, with the server's text.
   */
  public static RcrtServerException unexpected(String call, Reply reply) {
    boolean serverSide = reply.status() >= 500;
    return new RcrtServerException(
        serverSide ? StoreErrorCode.STORE_UNAVAILABLE.code() : StoreErrorCode.STORE_FAILED.code(), call + ": the RCRT server answered HTTP " + reply.status() + ": " + excerpt(reply.body()),
        serverSide, null);
  }

  private static String excerpt(String text) {
    String line = text.strip().replaceAll("\\s+", " ");
    return line.length() > ERROR_TEXT ? line.substring(0, ERROR_TEXT) + "…" : line;
  }
}
