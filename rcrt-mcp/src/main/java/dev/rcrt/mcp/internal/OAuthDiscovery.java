package dev.rcrt.mcp.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.oauth2.sdk.ParseException;
import com.nimbusds.oauth2.sdk.as.AuthorizationServerMetadata;
import com.nimbusds.oauth2.sdk.id.Issuer;
import com.nimbusds.oauth2.sdk.pkce.CodeChallengeMethod;
import dev.rcrt.core.RcrtJson;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Where an MCP server is authorized, as the MCP authorization specification (2025-11-25) finds it:
 * the protected-resource metadata (RFC 9728), whose {@code resource} must cover the server, then
 * the authorization server's metadata (RFC 8414, else OpenID Connect discovery), whose {@code
 * issuer} must be the one named and which must offer PKCE {@code S256}; for a server without
 * resource metadata, its own origin (2025-03-26), with the default endpoints where it publishes no
 * metadata either. Stateless.
 */
final class OAuthDiscovery {
  private OAuthDiscovery() {}

  /**
   * What discovery found.
   *
   * @param metadata the authorization server's metadata
   * @param resource the resource indicator to ask tokens for (the resource metadata's, else the server's URL)
   * @param scopesSupported the scopes the resource metadata lists, joined by spaces, or null
   */
  record Found(AuthorizationServerMetadata metadata, URI resource, @Nullable String scopesSupported) {}

  /**
   * Finds where {@code server} is authorized, starting from the {@code challenge} it answered with.
   *
   * @throws OAuthFailure when the metadata is missing, invalid, or names another resource or issuer
   */
  static Found discover(OAuthHttp http, URI server, OAuthChallenge challenge) {
    String origin = server.getScheme() + "://" + server.getRawAuthority();
    String path = server.getRawPath() == null || "/".equals(server.getRawPath()) ? "" : server.getRawPath();
    List<URI> prmAt = new ArrayList<>();
    if (challenge.resourceMetadata() != null) {
      prmAt.add(uri(challenge.resourceMetadata(), "the challenge's resource_metadata"));
    }
    if (!path.isEmpty()) {
      prmAt.add(URI.create(origin + "/.well-known/oauth-protected-resource" + path));
    }
    prmAt.add(URI.create(origin + "/.well-known/oauth-protected-resource"));
    JsonNode prm = null;
    for (URI at : prmAt) {
      if (!sameOrigin(at, server) && at != prmAt.get(0)) {
        continue;
      }
      String body = http.document(at);
      if (body != null) {
        prm = parse(body, "protected-resource metadata at " + OAuthHttp.where(at));
        break;
      }
    }
    AuthorizationServerMetadata as;
    URI resource = server;
    List<String> scopes = new ArrayList<>();
    if (prm != null) {
      URI named = uri(prm.path("resource").asText(""), "protected-resource metadata 'resource'");
      if (!covers(named, server)) {
        throw new OAuthFailure("MCP server " + OAuthHttp.where(server) + " publishes metadata for another resource (" + named
            + "): not authorizing; the server is misconfigured or not the one meant");
      }
      resource = named;
      JsonNode servers = prm.path("authorization_servers");
      if (!servers.isArray() || servers.isEmpty()) {
        throw new OAuthFailure("the protected-resource metadata of " + OAuthHttp.where(server) + " names no authorization server");
      }
      prm.path("scopes_supported").forEach(s -> scopes.add(s.asText()));
      URI issuer = uri(servers.get(0).asText(""), "authorization_servers");
      OAuthHttp.allowed(issuer);
      as = discovered(http, issuer);
      if (as == null) {
        throw new OAuthFailure("authorization server " + OAuthHttp.where(issuer) + " publishes no metadata (RFC 8414 or OpenID Connect discovery)");
      }
    } else {
      URI issuer = URI.create(origin);
      String body = http.document(URI.create(origin + "/.well-known/oauth-authorization-server"));
      as = body == null ? null : asMetadata(body, issuer, false);
      if (as == null) { // MCP 2025-03-26: the default endpoints at the server's origin
        as = new AuthorizationServerMetadata(new Issuer(origin));
        as.setAuthorizationEndpointURI(URI.create(origin + "/authorize"));
        as.setTokenEndpointURI(URI.create(origin + "/token"));
        as.setRegistrationEndpointURI(URI.create(origin + "/register"));
      }
    }
    if (as.getCodeChallengeMethods() != null && !as.getCodeChallengeMethods().contains(CodeChallengeMethod.S256)) {
      throw new OAuthFailure("authorization server " + as.getIssuer() + " does not support PKCE with S256: not authorizing");
    }
    return new Found(as, resource, scopes.isEmpty() ? null : String.join(" ", scopes));
  }

  /** RFC 8414 §3 and OpenID Connect discovery, in the order the MCP specification gives. */
  private static @Nullable AuthorizationServerMetadata discovered(OAuthHttp http, URI issuer) {
    String origin = issuer.getScheme() + "://" + issuer.getRawAuthority();
    String path = issuer.getRawPath() == null || "/".equals(issuer.getRawPath()) ? "" : stripSlash(issuer.getRawPath());
    List<URI> at = path.isEmpty()
        ? List.of(URI.create(origin + "/.well-known/oauth-authorization-server"), URI.create(origin + "/.well-known/openid-configuration"))
        : List.of(URI.create(origin + "/.well-known/oauth-authorization-server" + path), URI.create(origin + "/.well-known/openid-configuration" + path),
            URI.create(origin + path + "/.well-known/openid-configuration"));
    for (URI u : at) {
      String body = http.document(u);
      if (body != null) {
        return asMetadata(body, issuer, true);
      }
    }
    return null;
  }

  private static AuthorizationServerMetadata asMetadata(String body, URI issuer, boolean checkIssuer) {
    AuthorizationServerMetadata as;
    try {
      as = AuthorizationServerMetadata.parse(body);
    } catch (ParseException e) {
      throw new OAuthFailure("the metadata of authorization server " + OAuthHttp.where(issuer) + " is not valid (" + e.getMessage() + ")");
    }
    if (checkIssuer && !stripSlash(as.getIssuer().getValue()).equals(stripSlash(issuer.toString()))) {
      throw new OAuthFailure("authorization server " + OAuthHttp.where(issuer) + " names another issuer in its metadata (" + as.getIssuer() + "): not authorizing");
    }
    for (URI endpoint : new URI[] {as.getAuthorizationEndpointURI(), as.getTokenEndpointURI()}) {
      if (endpoint == null) {
        throw new OAuthFailure("the metadata of authorization server " + OAuthHttp.where(issuer) + " lacks its authorization or token endpoint");
      }
      OAuthHttp.allowed(endpoint);
    }
    return as;
  }

  /** Whether resource identifier {@code named} covers {@code server}: same origin, and its path a prefix of the server's at a segment. */
  static boolean covers(URI named, URI server) {
    if (!sameOrigin(named, server)) {
      return false;
    }
    String p = stripSlash(named.getRawPath() == null ? "" : named.getRawPath());
    String s = stripSlash(server.getRawPath() == null ? "" : server.getRawPath());
    return p.isEmpty() || s.equals(p) || s.startsWith(p + "/");
  }

  private static boolean sameOrigin(URI a, URI b) {
    return a.getScheme() != null && b.getScheme() != null && a.getScheme().equalsIgnoreCase(b.getScheme()) && a.getHost() != null
        && b.getHost() != null && a.getHost().equalsIgnoreCase(b.getHost()) && port(a) == port(b);
  }

  private static int port(URI u) {
    return u.getPort() != -1 ? u.getPort() : "https".equalsIgnoreCase(u.getScheme()) ? 443 : 80;
  }

  private static String stripSlash(String s) {
    return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
  }

  /** {@code body} as a JSON object. */
  static JsonNode parse(String body, String what) {
    JsonNode n;
    try {
      n = RcrtJson.parse(body);
    } catch (RuntimeException e) {
      throw new OAuthFailure("the " + what + " is not JSON");
    }
    if (!n.isObject()) {
      throw new OAuthFailure("the " + what + " is not a JSON object");
    }
    return n;
  }

  private static URI uri(String text, String what) {
    try {
      URI u = new URI(text);
      if (u.getScheme() == null || u.getHost() == null) {
        throw new OAuthFailure(what + " is not an absolute URL: '" + text + "'");
      }
      return u;
    } catch (java.net.URISyntaxException e) {
      throw new OAuthFailure(what + " is not a URL: '" + text + "'");
    }
  }
}
