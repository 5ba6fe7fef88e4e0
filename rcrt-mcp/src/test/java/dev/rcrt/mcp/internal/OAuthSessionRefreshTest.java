package dev.rcrt.mcp.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.rcrt.mcp.McpOAuth;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A later process with saved tokens: it sends the saved access token at once, refreshes it on a
 * {@code 401} with the saved refresh token (keeping the new pair), and authorizes again through the
 * user agent when the refresh is refused; against a real local authorization server.
 */
class OAuthSessionRefreshTest {
  private HttpServer site;
  private String base;
  private final Queue<String> tokenAnswers = new ConcurrentLinkedQueue<>();
  private final List<String> tokenRequests = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws IOException {
    site = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    base = "http://127.0.0.1:" + site.getAddress().getPort();
    site.createContext("/", exchange -> {
      String path = exchange.getRequestURI().getPath();
      String body;
      int status = 200;
      if (path.equals("/.well-known/oauth-protected-resource/mcp")) {
        body = "{\"resource\":\"" + base + "/mcp\",\"authorization_servers\":[\"" + base + "\"]}";
      } else if (path.equals("/.well-known/oauth-authorization-server")) {
        body = "{\"issuer\":\"" + base + "\",\"authorization_endpoint\":\"" + base + "/authorize\",\"token_endpoint\":\"" + base
            + "/token\",\"response_types_supported\":[\"code\"],\"code_challenge_methods_supported\":[\"S256\"],"
            + "\"token_endpoint_auth_methods_supported\":[\"none\"]}";
      } else if (path.equals("/token")) {
        tokenRequests.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
        body = tokenAnswers.remove();
        status = body.contains("invalid_grant") ? 400 : 200;
      } else {
        body = "{}";
        status = 404;
      }
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(status, bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    });
    site.start();
  }

  @AfterEach
  void stop() {
    site.stop(0);
  }

  private McpOAuth.TokenStore saved() {
    McpOAuth.TokenStore tokens = McpOAuth.TokenStore.inMemory();
    tokens.save(base + "/mcp", "{\"issuer\":\"" + base + "\",\"client_id\":\"c-1\",\"token_endpoint_auth_method\":\"none\","
        + "\"redirect_uri\":\"http://127.0.0.1/callback\",\"access_token\":\"old\",\"refresh_token\":\"r-1\",\"scope\":\"mcp\"}");
    return tokens;
  }

  @Test
  void aSavedTokenIsSentAndRefreshedOnA401() {
    McpOAuth.TokenStore tokens = saved();
    RecordingUserAgent agent = RecordingUserAgent.approving("code-1");
    OAuthSession session = new OAuthSession(McpOAuth.builder().userAgent(agent).tokens(tokens).build(), URI.create(base + "/mcp"));
    assertThat(session.accessToken()).isEqualTo("old");

    tokenAnswers.add("{\"access_token\":\"new\",\"token_type\":\"Bearer\",\"refresh_token\":\"r-2\",\"expires_in\":3600}");
    assertThat(session.challenged(401, "Bearer error=\"invalid_token\"", "old")).isTrue();

    assertThat(session.accessToken()).isEqualTo("new");
    assertThat(tokenRequests).singleElement().satisfies(r -> assertThat(r).contains("grant_type=refresh_token").contains("refresh_token=r-1")
        .contains("client_id=c-1").contains("resource="));
    assertThat(tokens.load(base + "/mcp").orElseThrow()).contains("\"access_token\":\"new\"").contains("\"refresh_token\":\"r-2\"");
    assertThat(agent.opened).as("no person was asked").isEmpty();
    // a request still carrying the old token is simply sent again with the new one
    assertThat(session.challenged(401, "Bearer", "old")).isTrue();
    assertThat(tokenRequests).hasSize(1);
  }

  @Test
  void aRefusedRefreshAuthorizesAgainThroughTheUserAgent() {
    RecordingUserAgent agent = RecordingUserAgent.approving("code-1");
    OAuthSession session = new OAuthSession(McpOAuth.builder().userAgent(agent).tokens(saved()).build(), URI.create(base + "/mcp"));
    tokenAnswers.add("{\"error\":\"invalid_grant\",\"error_description\":\"revoked\"}");
    tokenAnswers.add("{\"access_token\":\"fresh\",\"token_type\":\"Bearer\"}");

    assertThat(session.challenged(401, "Bearer", "old")).isTrue();

    assertThat(agent.opened).hasSize(1);
    assertThat(session.accessToken()).isEqualTo("fresh");
    assertThat(tokenRequests.get(1)).contains("grant_type=authorization_code").contains("code_verifier=");
  }
}
