package dev.rcrt.llm.internal.openai;

import dev.rcrt.core.TimeSource;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;

/**
 * The frozen settings of one chat-completions endpoint, as the public client's
 * builder left them.
 *
 * @param uri the full chat-completions URL, query included
 * @param headers sent with every request (authorization included); values may be secrets
 * @param http the client to send with; shared, never closed here
 * @param requestTimeout a whole non-streamed answer, and a streamed one's headers
 * @param streamIdleTimeout the longest gap between two stream events
 * @param streamTimeout the longest a whole stream may take
 * @param maxResponseBytes the most bytes an answer may have
 * @param clock what a {@code Retry-After} date is compared with
 * @param time what the stream's gaps and the body's deadline are measured on (the client's {@code TimeSource})
 */
public record Endpoint(
    URI uri,
    Map<String, String> headers,
    HttpClient http,
    Duration requestTimeout,
    Duration streamIdleTimeout,
    Duration streamTimeout,
    long maxResponseBytes,
    Clock clock,
    TimeSource time) {

  /** Copies the headers. */
  public Endpoint {
    headers = Map.copyOf(headers);
  }

  /**
   * The chat-completions URL for an API base: {@code /chat/completions} appended to its path unless
   * it ends with it already, its query kept and {@code parameters} added, URL-encoded.
   */
  public static URI chatCompletions(URI base, Map<String, String> parameters) {
    String path = base.getRawPath() == null ? "" : base.getRawPath();
    path = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    path = path.endsWith("/chat/completions") ? path : path + "/chat/completions";
    StringBuilder q = new StringBuilder(base.getRawQuery() == null ? "" : base.getRawQuery());
    parameters.forEach(
        (name, value) -> q.append(q.length() == 0 ? "" : "&")
            .append(URLEncoder.encode(name, StandardCharsets.UTF_8)).append('=')
            .append(URLEncoder.encode(value, StandardCharsets.UTF_8)));
    return URI.create(base.getScheme() + "://" + base.getRawAuthority() + path + (q.length() == 0 ? "" : "?" + q));
  }

  /** The embeddings URL beside a chat-completions one ({@link #chatCompletions}): {@code …/embeddings}, the same query. */
  public static URI embeddings(URI uri) {
    String path = uri.getRawPath();
    path = path.substring(0, path.length() - "/chat/completions".length()) + "/embeddings";
    return URI.create(uri.getScheme() + "://" + uri.getRawAuthority() + path + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery()));
  }

  /** The URL without its query, for messages: a query may carry a key (some providers take {@code ?key=}). */
  public String printable() {
    return uri.getScheme() + "://" + uri.getRawAuthority() + uri.getRawPath();
  }
}
