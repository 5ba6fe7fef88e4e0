package dev.rcrt.mcp.internal;

import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.HttpRequestSnapshot;
import io.modelcontextprotocol.client.transport.McpHttpClientTransportAuthorizationException;
import io.modelcontextprotocol.client.transport.customizer.McpHttpClientTransportAuthorizationErrorHandler;
import io.modelcontextprotocol.common.McpTransportContext;
import java.net.http.HttpResponse;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Puts an {@link OAuthSession} on the MCP SDK's streamable HTTP transport: every request carries
 * the session's access token, and a {@code 401} or {@code 403} asks the session for a better one
 * (on a bounded-elastic thread, since it may wait for a person) before the SDK sends the request
 * again, at most {@code maxRetries} times in a row.
 */
public final class OAuthTransport {
  private OAuthTransport() {}

  /** Configures {@code transport} to authorize through {@code session}. */
  public static void apply(HttpClientStreamableHttpTransport.Builder transport, OAuthSession session, int maxRetries) {
    transport.httpRequestCustomizer((request, method, uri, body, context) -> {
      String token = session.accessToken();
      if (token != null) {
        request.setHeader("Authorization", "Bearer " + token);
      }
    });
    transport.authorizationErrorHandler(new McpHttpClientTransportAuthorizationErrorHandler() {
      @Override
      public Publisher<Boolean> handle(HttpRequestSnapshot request, HttpResponse.ResponseInfo response, McpTransportContext context) {
        String sent = request.headers().firstValue("Authorization").filter(v -> v.regionMatches(true, 0, "Bearer ", 0, 7))
            .map(v -> v.substring(7)).orElse(null);
        String challenge = response.headers().firstValue("WWW-Authenticate").orElse(null);
        return Mono.fromCallable(() -> session.challenged(response.statusCode(), challenge, sent)).subscribeOn(Schedulers.boundedElastic());
      }

      @Override
      public int maxRetries() {
        return maxRetries;
      }
    });
  }

  /**
   * Why a request failed for want of authorization, in one line, when {@code failure} (or a cause)
   * says so; null otherwise.
   */
  public static @Nullable String refusal(Throwable failure, @Nullable OAuthSession session) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof OAuthFailure f) {
        return f.getMessage();
      }
      if (t instanceof McpHttpClientTransportAuthorizationException refused) {
        int status = refused.getResponseInfo().statusCode();
        String challenge = refused.getResponseInfo().headers().firstValue("WWW-Authenticate").orElse(null);
        String last = session == null ? null : session.lastFailure();
        return last != null ? last
            : "the server still refuses the request (" + status + ", " + OAuthChallenge.parse(challenge).describe() + ")"
                + (session == null ? ": it requires authorization; give it an OAuth configuration" : " after every authorization allowed");
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return null;
  }
}
