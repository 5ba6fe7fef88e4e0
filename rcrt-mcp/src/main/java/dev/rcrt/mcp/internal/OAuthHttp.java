package dev.rcrt.mcp.internal;

import com.nimbusds.oauth2.sdk.http.HTTPRequest;
import com.nimbusds.oauth2.sdk.http.HTTPResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The exchanges with authorization servers and metadata endpoints, for {@link OAuthSession}: each
 * Nimbus request sent on the JDK's HTTP client, bounded in time ({@code timeout}) and size (1 MiB
 * a body), never following a redirect, and only to {@code https} or to {@code http} on a loopback
 * address. Thread-safe.
 */
final class OAuthHttp {
  /** The largest body read from an authorization server or a metadata document. */
  static final int MAX_BODY = 1 << 20;

  private final HttpClient client;
  private final Duration timeout;

  OAuthHttp(Duration timeout) {
    this.timeout = timeout;
    this.client = HttpClient.newBuilder().connectTimeout(timeout).followRedirects(HttpClient.Redirect.NEVER).build();
  }

  /**
   * Sends {@code request} and reads its answer.
   *
   * @throws OAuthFailure when the URL is not allowed, the server cannot be reached in time, or its
   *     body is larger than {@link #MAX_BODY}
   */
  HTTPResponse send(HTTPRequest request) {
    URI uri = request.getURI();
    allowed(uri);
    HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(timeout);
    for (Map.Entry<String, List<String>> h : request.getHeaderMap().entrySet()) {
      for (String value : h.getValue()) {
        b.header(h.getKey(), value);
      }
    }
    String body = request.getBody();
    b.method(request.getMethod().name(), body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    try {
      HttpResponse<InputStream> answer = client.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
      HTTPResponse response = new HTTPResponse(answer.statusCode());
      answer.headers().map().forEach((name, values) -> {
        if (!name.startsWith(":")) {
          response.setHeader(name, values.toArray(String[]::new));
        }
      });
      try (InputStream in = answer.body()) {
        byte[] bytes = in.readNBytes(MAX_BODY + 1);
        if (bytes.length > MAX_BODY) {
          throw new OAuthFailure("the answer of " + where(uri) + " is larger than " + MAX_BODY + " bytes");
        }
        response.setBody(new String(bytes, StandardCharsets.UTF_8));
      }
      return response;
    } catch (IOException e) {
      throw new OAuthFailure("could not reach " + where(uri) + " (" + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()) + ")");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new OAuthFailure("interrupted while asking " + where(uri));
    }
  }

  /** A GET of a JSON document, its body when it answers 200, else null. */
  @org.jspecify.annotations.Nullable
  String document(URI uri) {
    HTTPRequest get = new HTTPRequest(HTTPRequest.Method.GET, uri);
    get.setAccept("application/json");
    HTTPResponse r = send(get);
    return r.getStatusCode() == 200 ? r.getBody() : null;
  }

  /**
   * Refuses a URL an authorization step must not go to: not {@code https}, unless {@code http} to
   * a loopback address (OAuth 2.1 §1.5; RFC 8252 for local servers).
   */
  static void allowed(URI uri) {
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if ("https".equals(scheme) && uri.getHost() != null) {
      return;
    }
    if ("http".equals(scheme) && uri.getHost() != null && loopback(uri.getHost())) {
      return;
    }
    throw new OAuthFailure("refusing " + where(uri) + ": authorization goes over https only (http only to this machine)");
  }

  private static boolean loopback(String host) {
    String h = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
    if ("localhost".equalsIgnoreCase(h)) {
      return true;
    }
    if (!h.matches("[0-9.]+|[0-9a-fA-F:]+")) {
      return false; // a name other than localhost is not resolved to decide
    }
    try {
      return InetAddress.getByName(h).isLoopbackAddress();
    } catch (IOException e) {
      return false;
    }
  }

  /** A URL as errors show it: scheme, authority and path, no query (it may carry a code or a state). */
  static String where(URI uri) {
    return uri.getScheme() + "://" + uri.getRawAuthority() + (uri.getRawPath() == null ? "" : uri.getRawPath());
  }
}
