package dev.rcrt.mcp.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.rcrt.mcp.McpOAuth;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a hostile MCP server or authorization server can make the OAuth client do, against a real
 * local HTTP server playing both: nothing goes to a plain-http host elsewhere, to another
 * resource's or issuer's metadata, without PKCE S256, or on a redirect of another request; no
 * failure shows a secret; an oversized document is refused.
 */
class OAuthSessionAttackTest {
  private static final String CLIENT_SECRET = "s3cr3t-never-shown";

  private HttpServer site;
  private String base;
  private final Map<String, String> documents = new ConcurrentHashMap<>();
  private final List<String> asked = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws IOException {
    site = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    site.createContext("/", exchange -> {
      String path = exchange.getRequestURI().getPath();
      asked.add(exchange.getRequestMethod() + " " + path);
      String body = documents.get(path);
      byte[] bytes = body == null ? "{}".getBytes(StandardCharsets.UTF_8) : body.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(body == null ? 404 : 200, bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    });
    site.start();
    base = "http://127.0.0.1:" + site.getAddress().getPort();
  }

  @AfterEach
  void stop() {
    site.stop(0);
  }

  private OAuthSession session(RecordingUserAgent agent) {
    return new OAuthSession(McpOAuth.builder().userAgent(agent).client("client-1", CLIENT_SECRET).build(), URI.create(base + "/mcp"));
  }

  private void resourceNaming(String resource, String authorizationServer) {
    documents.put("/.well-known/oauth-protected-resource/mcp",
        "{\"resource\":\"" + resource + "\",\"authorization_servers\":[\"" + authorizationServer + "\"]}");
  }

  private void issuer(String issuer, String extra) {
    documents.put("/.well-known/oauth-authorization-server", "{\"issuer\":\"" + issuer + "\",\"authorization_endpoint\":\"" + base
        + "/authorize\",\"token_endpoint\":\"" + base + "/token\",\"response_types_supported\":[\"code\"]" + extra + "}");
  }

  @Test
  void anAuthorizationServerOnPlainHttpElsewhereIsNeverAsked() {
    resourceNaming(base + "/mcp", "http://auth.example.com");
    RecordingUserAgent agent = new RecordingUserAgent(u -> u);
    assertThatThrownBy(() -> session(agent).challenged(401, "Bearer", null)).isInstanceOf(OAuthFailure.class)
        .hasMessageContaining("https only").hasMessageNotContaining(CLIENT_SECRET);
    assertThat(agent.opened).isEmpty();
  }

  @Test
  void metadataOfAnotherResourceStopsTheFlowBeforeAnyAuthorization() {
    resourceNaming("https://evil.example.com/mcp", base);
    issuer(base, "");
    RecordingUserAgent agent = new RecordingUserAgent(u -> u);
    assertThatThrownBy(() -> session(agent).challenged(401, "Bearer resource_metadata=\"" + base + "/.well-known/oauth-protected-resource/mcp\"", null))
        .isInstanceOf(OAuthFailure.class).hasMessageContaining("another resource");
    assertThat(agent.opened).isEmpty();
    assertThat(asked).noneMatch(r -> r.contains("/token") || r.contains("/authorize"));
  }

  @Test
  void anAuthorizationServerNamingAnotherIssuerIsRefused() {
    resourceNaming(base + "/mcp", base);
    issuer("https://mix-up.example.com", "");
    RecordingUserAgent agent = new RecordingUserAgent(u -> u);
    assertThatThrownBy(() -> session(agent).challenged(401, "Bearer", null)).isInstanceOf(OAuthFailure.class)
        .hasMessageContaining("another issuer");
    assertThat(agent.opened).isEmpty();
  }

  @Test
  void anAuthorizationServerWithoutS256IsRefused() {
    resourceNaming(base + "/mcp", base);
    issuer(base, ",\"code_challenge_methods_supported\":[\"plain\"]");
    RecordingUserAgent agent = new RecordingUserAgent(u -> u);
    assertThatThrownBy(() -> session(agent).challenged(401, "Bearer", null)).isInstanceOf(OAuthFailure.class).hasMessageContaining("S256");
    assertThat(agent.opened).isEmpty();
  }

  @Test
  void aRedirectOfAnotherRequestIsIgnoredAndNoCodeIsExchanged() {
    resourceNaming(base + "/mcp", base);
    issuer(base, ",\"code_challenge_methods_supported\":[\"S256\"]");
    RecordingUserAgent agent = new RecordingUserAgent(u -> URI.create("http://127.0.0.1/callback?code=stolen&state=not-ours"));
    assertThatThrownBy(() -> session(agent).challenged(401, "Bearer", null)).isInstanceOf(OAuthFailure.class)
        .hasMessageContaining("another request's state").hasMessageNotContaining("stolen");
    assertThat(agent.opened).singleElement().satisfies(u -> assertThat(u.getRawQuery()).contains("code_challenge_method=S256")
        .contains("resource=").doesNotContain(CLIENT_SECRET));
    assertThat(asked).noneMatch(r -> r.contains("/token"));
  }

  @Test
  void anOversizedMetadataDocumentIsRefused() {
    documents.put("/.well-known/oauth-protected-resource/mcp", "{\"resource\":\"" + base + "/mcp\",\"pad\":\"" + "x".repeat(2 << 20) + "\"}");
    RecordingUserAgent agent = new RecordingUserAgent(u -> u);
    assertThatThrownBy(() -> session(agent).challenged(401, "Bearer", null)).isInstanceOf(OAuthFailure.class).hasMessageContaining("larger than");
  }

  @Test
  void aForbiddenAnswerOtherThanInsufficientScopeIsNotRetried() {
    RecordingUserAgent agent = new RecordingUserAgent(u -> u);
    assertThatThrownBy(() -> session(agent).challenged(403, "Bearer error=\"invalid_token\", error_description=\"revoked\"", null))
        .isInstanceOf(OAuthFailure.class).hasMessageContaining("403, invalid_token: revoked");
    assertThat(asked).isEmpty();
  }

  @Test
  void challengesAreReadAsRfc6750Says() {
    OAuthChallenge c = OAuthChallenge.parse("Basic realm=\"x\", Bearer error=\"insufficient_scope\", scope=\"a b\", "
        + "resource_metadata=\"https://r.example/.well-known/oauth-protected-resource\", error_description=\"say \\\"more\\\"\"");
    assertThat(c.error()).isEqualTo("insufficient_scope");
    assertThat(c.scope()).isEqualTo("a b");
    assertThat(c.resourceMetadata()).isEqualTo("https://r.example/.well-known/oauth-protected-resource");
    assertThat(c.describe()).isEqualTo("insufficient_scope: say \"more\"");
    assertThat(OAuthChallenge.parse("Basic realm=\"bearer\"").params()).isEmpty();
    assertThat(OAuthChallenge.parse(null).params()).isEmpty();
  }

  @Test
  void onlyHttpsOrThisMachinesHttpIsAllowed() {
    OAuthHttp.allowed(URI.create("https://auth.example.com/token"));
    OAuthHttp.allowed(URI.create("http://127.0.0.1:8080/token"));
    OAuthHttp.allowed(URI.create("http://localhost:8080/token"));
    OAuthHttp.allowed(URI.create("http://[::1]:8080/token"));
    for (String refused : List.of("http://auth.example.com/token", "http://127.0.0.1.nip.io/token", "http://10.0.0.1/token", "ftp://x/y",
        "file:///etc/passwd")) {
      assertThatThrownBy(() -> OAuthHttp.allowed(URI.create(refused))).as(refused).isInstanceOf(OAuthFailure.class);
    }
  }

  @Test
  void aResourceCoversOnlyItsOwnOriginAndPath() {
    URI server = URI.create("http://127.0.0.1:9/api/mcp");
    assertThat(OAuthDiscovery.covers(URI.create("http://127.0.0.1:9"), server)).isTrue();
    assertThat(OAuthDiscovery.covers(URI.create("http://127.0.0.1:9/api"), server)).isTrue();
    assertThat(OAuthDiscovery.covers(URI.create("http://127.0.0.1:9/api/mcp/"), server)).isTrue();
    assertThat(OAuthDiscovery.covers(URI.create("http://127.0.0.1:9/ap"), server)).isFalse();
    assertThat(OAuthDiscovery.covers(URI.create("http://127.0.0.1:10/api/mcp"), server)).isFalse();
    assertThat(OAuthDiscovery.covers(URI.create("https://127.0.0.1:9/api/mcp"), server)).isFalse();
  }
}
