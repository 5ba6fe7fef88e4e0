package dev.rcrt.mcp.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.nimbusds.oauth2.sdk.AccessTokenResponse;
import com.nimbusds.oauth2.sdk.AuthorizationCodeGrant;
import com.nimbusds.oauth2.sdk.AuthorizationGrant;
import com.nimbusds.oauth2.sdk.AuthorizationRequest;
import com.nimbusds.oauth2.sdk.AuthorizationResponse;
import com.nimbusds.oauth2.sdk.ClientCredentialsGrant;
import com.nimbusds.oauth2.sdk.JWTBearerGrant;
import com.nimbusds.common.contenttype.ContentType;
import com.nimbusds.jwt.SignedJWT;
import com.nimbusds.oauth2.sdk.http.HTTPRequest;
import com.nimbusds.oauth2.sdk.http.HTTPResponse;
import com.nimbusds.oauth2.sdk.util.URLUtils;
import com.nimbusds.oauth2.sdk.ErrorObject;
import com.nimbusds.oauth2.sdk.ParseException;
import com.nimbusds.oauth2.sdk.RefreshTokenGrant;
import com.nimbusds.oauth2.sdk.ResponseType;
import com.nimbusds.oauth2.sdk.Scope;
import com.nimbusds.oauth2.sdk.TokenRequest;
import com.nimbusds.oauth2.sdk.TokenResponse;
import com.nimbusds.oauth2.sdk.as.AuthorizationServerMetadata;
import com.nimbusds.oauth2.sdk.auth.ClientAuthenticationMethod;
import com.nimbusds.oauth2.sdk.auth.ClientSecretBasic;
import com.nimbusds.oauth2.sdk.auth.ClientSecretPost;
import com.nimbusds.oauth2.sdk.auth.Secret;
import com.nimbusds.oauth2.sdk.id.ClientID;
import com.nimbusds.oauth2.sdk.id.State;
import com.nimbusds.oauth2.sdk.pkce.CodeChallengeMethod;
import com.nimbusds.oauth2.sdk.pkce.CodeVerifier;
import com.nimbusds.oauth2.sdk.token.RefreshToken;
import com.nimbusds.oauth2.sdk.token.Tokens;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.mcp.McpOAuth;
import java.io.IOException;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One MCP server's authorization, as {@link McpOAuth} describes it: the token to send, and what to
 * do when the server refuses it. Discovery, registration, the authorization code flow with PKCE,
 * refresh and step-up run here, one at a time per session; the protocol messages are the Nimbus
 * OAuth 2.0 SDK's. What it learns (client, tokens, granted scope) is saved in the {@link
 * McpOAuth.TokenStore} under the server's URL. Thread-safe.
 */
public final class OAuthSession {
  private static final Logger LOG = LoggerFactory.getLogger(OAuthSession.class);

  private final McpOAuth config;
  private final URI server;
  private final OAuthHttp http;

  /** The saved state; guarded by {@code this}. Null until loaded or first authorized. */
  private @Nullable ObjectNode saved;
  private volatile @Nullable String accessToken;
  /** Where this server is authorized, once found this session; guarded by {@code this}. */
  private OAuthDiscovery.@Nullable Found found;
  /** The scope asked for last; guarded by {@code this}. */
  private @Nullable String scope;
  private volatile @Nullable String lastFailure;

  /** Loads what the token store holds for {@code server}. */
  public OAuthSession(McpOAuth config, URI server) {
    this.config = config;
    this.server = server;
    this.http = new OAuthHttp(config.timeout());
    String stored = config.tokens().load(server.toString()).orElse(null);
    if (stored != null) {
      try {
        JsonNode node = RcrtJson.parse(stored);
        if (node instanceof ObjectNode o) {
          saved = o;
          accessToken = text(o, "access_token");
          scope = text(o, "scope");
        }
      } catch (RuntimeException e) {
        LOG.warn("the saved authorization of MCP server {} is not readable; authorizing again", OAuthHttp.where(server));
      }
    }
  }

  /** The access token to send, or null before the first authorization. */
  public @Nullable String accessToken() {
    return accessToken;
  }

  /** Why the last authorization failed, or null. */
  public @Nullable String lastFailure() {
    return lastFailure;
  }

  /**
   * The server refused a request with {@code status} ({@code 401} or {@code 403}): gets a token
   * that may do better (refreshed, newly authorized, or with more scope).
   *
   * @param sent the access token that request carried, or null
   * @return whether to send the request again
   * @throws OAuthFailure when no better token can be had; its message says why
   */
  public synchronized boolean challenged(int status, @Nullable String wwwAuthenticate, @Nullable String sent) {
    try {
      String current = accessToken;
      if (current != null && !current.equals(sent)) {
        return true; // another request got a new token meanwhile
      }
      OAuthChallenge challenge = OAuthChallenge.parse(wwwAuthenticate);
      if (status == 403) {
        if (!"insufficient_scope".equals(challenge.error())) {
          throw new OAuthFailure("MCP server " + OAuthHttp.where(server) + " refused the token (403, " + challenge.describe() + ")");
        }
        obtain(challenge, union(scope, challenge.scope()));
        return true;
      }
      if (current != null && refresh(challenge)) {
        return true;
      }
      obtain(challenge, null);
      return true;
    } catch (OAuthFailure e) {
      lastFailure = e.getMessage();
      throw e;
    }
  }

  /** Exchanges the saved refresh token for a new access token; false when there is none or it is refused. */
  private boolean refresh(OAuthChallenge challenge) {
    ObjectNode s = saved;
    String refreshToken = s == null ? null : text(s, "refresh_token");
    if (s == null || refreshToken == null) {
      return false;
    }
    AuthorizationServerMetadata as = metadata(challenge);
    AccessTokenResponse ok = token(as, new RefreshTokenGrant(new RefreshToken(refreshToken)), false, null);
    if (ok == null) {
      return false;
    }
    keep(ok.getTokens(), scope);
    return true;
  }

  /** Gets tokens by the configured grant, with the scope demanded or listed, and keeps them. */
  private void obtain(OAuthChallenge challenge, @Nullable String stepUp) {
    AuthorizationServerMetadata as = metadata(challenge);
    String asked = stepUp != null ? stepUp : challenge.scope() != null ? challenge.scope() : found().scopesSupported();
    switch (config.grant()) {
      case CLIENT_CREDENTIALS -> keep(nonNullToken(token(as, new ClientCredentialsGrant(), true, asked)).getTokens(), asked);
      case JWT_BEARER -> keep(nonNullToken(token(as, new JWTBearerGrant(assertion(as)), true, asked)).getTokens(), asked);
      default -> authorize(as, asked);
    }
  }

  /**
   * SEP-990: the enterprise identity provider exchanges the person's ID token for an identity
   * assertion grant (RFC 8693, {@code urn:ietf:params:oauth:token-type:id-jag}) for this
   * authorization server and resource.
   */
  private SignedJWT assertion(AuthorizationServerMetadata as) {
    McpOAuth.Enterprise idp = java.util.Objects.requireNonNull(config.enterprise(), "enterprise");
    OAuthHttp.allowed(idp.tokenEndpoint());
    HTTPRequest exchange = new HTTPRequest(HTTPRequest.Method.POST, idp.tokenEndpoint());
    exchange.setEntityContentType(ContentType.APPLICATION_URLENCODED);
    java.util.Map<String, List<String>> form = new java.util.LinkedHashMap<>();
    form.put("grant_type", List.of("urn:ietf:params:oauth:grant-type:token-exchange"));
    form.put("requested_token_type", List.of("urn:ietf:params:oauth:token-type:id-jag"));
    form.put("subject_token", List.of(idp.idToken()));
    form.put("subject_token_type", List.of("urn:ietf:params:oauth:token-type:id_token"));
    form.put("audience", List.of(as.getIssuer().getValue()));
    form.put("resource", List.of(found().resource().toString()));
    form.put("client_id", List.of(idp.clientId()));
    exchange.setBody(URLUtils.serializeParameters(form));
    HTTPResponse answer = http.send(exchange);
    JsonNode body = answer.getStatusCode() == 200 ? OAuthDiscovery.parse(answer.getBody(), "token exchange answer of " + OAuthHttp.where(idp.tokenEndpoint())) : null;
    if (body == null || !body.path("access_token").isTextual()) {
      throw new OAuthFailure("identity provider " + OAuthHttp.where(idp.tokenEndpoint()) + " did not exchange the ID token (" + answer.getStatusCode()
          + errorCode(answer.getBody()) + ")");
    }
    try {
      return SignedJWT.parse(body.get("access_token").asText());
    } catch (java.text.ParseException e) {
      throw new OAuthFailure("identity provider " + OAuthHttp.where(idp.tokenEndpoint()) + " answered with an assertion that is not a signed JWT");
    }
  }

  /** {@code ", <error>"} of an OAuth error body, or nothing when the body is not one. */
  private static String errorCode(@Nullable String body) {
    try {
      String code = body == null ? "" : RcrtJson.parse(body).path("error").asText("");
      return code.isEmpty() ? "" : ", " + code;
    } catch (RuntimeException notJson) {
      return "";
    }
  }

  private static AccessTokenResponse nonNullToken(@Nullable AccessTokenResponse ok) {
    return java.util.Objects.requireNonNull(ok, "a token request that fails hard returns a token");
  }

  /** Runs the authorization code flow with PKCE and keeps its tokens. */
  private void authorize(AuthorizationServerMetadata as, @Nullable String scopeAsked) {
    String asked = scopeAsked;
    Scope offered = as.getScopes();
    if (offered != null && offered.contains("offline_access") && (asked == null || !asked.contains("offline_access"))) {
      asked = asked == null ? "offline_access" : asked + " offline_access";
    }
    McpOAuth.UserAgent userAgent = config.userAgent();
    if (userAgent == null) {
      throw new OAuthFailure("MCP server " + OAuthHttp.where(server) + " needs a person to authorize, and no user agent was given");
    }
    URI redirect;
    try {
      redirect = userAgent.redirectUri();
    } catch (IOException e) {
      throw new OAuthFailure("no redirect URI for the authorization: " + e.getMessage());
    }
    OAuthClients.Client client = client(as, redirect);
    CodeVerifier verifier = new CodeVerifier();
    State state = new State();
    AuthorizationRequest.Builder request = new AuthorizationRequest.Builder(ResponseType.CODE, new ClientID(client.id()))
        .endpointURI(as.getAuthorizationEndpointURI())
        .redirectionURI(redirect)
        .state(state)
        .codeChallenge(verifier, CodeChallengeMethod.S256)
        .resource(found().resource());
    if (asked != null) {
      request.scope(Scope.parse(asked));
    }
    URI authorization = request.build().toURI();
    OAuthHttp.allowed(authorization);
    LOG.info("authorizing with {} for MCP server {}{}", OAuthHttp.where(as.getAuthorizationEndpointURI()), OAuthHttp.where(server),
        asked == null ? "" : " (scope " + asked + ")");
    URI back;
    try {
      back = userAgent.authorize(authorization);
    } catch (IOException e) {
      throw new OAuthFailure("the authorization at " + OAuthHttp.where(as.getAuthorizationEndpointURI()) + " did not finish: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new OAuthFailure("interrupted while waiting for the authorization at " + OAuthHttp.where(as.getAuthorizationEndpointURI()));
    }
    AuthorizationResponse answer;
    try {
      answer = AuthorizationResponse.parse(back);
    } catch (ParseException e) {
      throw new OAuthFailure("the authorization server's redirect is not an authorization response (" + e.getMessage() + ")");
    }
    if (!state.equals(answer.getState())) {
      throw new OAuthFailure("the authorization server's redirect carries another request's state: ignored");
    }
    if (!answer.indicatesSuccess()) {
      throw new OAuthFailure("the authorization server refused: " + describe(answer.toErrorResponse().getErrorObject()));
    }
    AuthorizationGrant grant = new AuthorizationCodeGrant(answer.toSuccessResponse().getAuthorizationCode(), redirect, verifier);
    keep(nonNullToken(token(as, grant, true, null)).getTokens(), asked);
  }

  /**
   * Where this server is authorized: found once a session ({@link OAuthDiscovery}), with the
   * challenge that first asked.
   */
  private AuthorizationServerMetadata metadata(OAuthChallenge challenge) {
    OAuthDiscovery.Found known = found;
    if (known == null) {
      known = OAuthDiscovery.discover(http, server, challenge);
      found = known;
    }
    return known.metadata();
  }

  /** What {@link #metadata} found; called only after it. */
  private OAuthDiscovery.Found found() {
    return java.util.Objects.requireNonNull(found, "discovered before use");
  }

  /** The pre-registered client, the one saved for this issuer, the client ID metadata document, or a new registration. */
  private OAuthClients.Client client(AuthorizationServerMetadata as, URI redirect) {
    if (config.clientId() != null) {
      return preRegistered(config.clientId(), as.getTokenEndpointAuthMethods());
    }
    ObjectNode s = saved;
    String issuer = as.getIssuer().getValue();
    OAuthClients.Client registered = savedClient();
    if (registered != null && s != null && issuer.equals(text(s, "issuer")) && sameRedirect(redirect, text(s, "redirect_uri"))) {
      return registered;
    }
    URI cimd = config.clientMetadataUrl();
    if (cimd != null && Boolean.TRUE.equals(as.getCustomParameter("client_id_metadata_document_supported"))) {
      return remember(as, redirect, new OAuthClients.Client(cimd.toString(), null, ClientAuthenticationMethod.NONE));
    }
    OAuthClients.Client registeredNow = OAuthClients.register(http, as, redirect, config.clientName());
    LOG.info("registered with authorization server {} for MCP server {}", issuer, OAuthHttp.where(server));
    return remember(as, redirect, registeredNow);
  }

  /** The pre-registered client ({@link OAuthClients#preRegistered}). */
  private OAuthClients.Client preRegistered(String id, @Nullable List<ClientAuthenticationMethod> supported) {
    return OAuthClients.preRegistered(id, config.clientSecret(), config.clientKey() != null, supported);
  }

  /** Whether a registration for {@code saved} serves {@code redirect}: the same URI, any port of a loopback one (RFC 8252 §7.3). */
  private static boolean sameRedirect(URI redirect, @Nullable String saved) {
    if (saved == null) {
      return false;
    }
    URI before = URI.create(saved);
    boolean loopback = "127.0.0.1".equals(redirect.getHost()) || "[::1]".equals(redirect.getHost());
    return loopback ? redirect.getScheme().equals(before.getScheme()) && redirect.getHost().equals(before.getHost())
        && java.util.Objects.equals(redirect.getRawPath(), before.getRawPath()) : redirect.equals(before);
  }

  private OAuthClients.Client remember(AuthorizationServerMetadata as, URI redirect, OAuthClients.Client client) {
    ObjectNode s = RcrtJson.object();
    s.put("issuer", as.getIssuer().getValue());
    s.put("redirect_uri", redirect.toString());
    s.put("client_id", client.id());
    if (client.secret() != null) {
      s.put("client_secret", client.secret());
    }
    s.put("token_endpoint_auth_method", client.method().getValue());
    saved = s;
    accessToken = null;
    save();
    return client;
  }

  /**
   * A token request for {@code grant}; its success, or null when a refresh is refused ({@code
   * failHard} false).
   */
  private @Nullable AccessTokenResponse token(AuthorizationServerMetadata as, AuthorizationGrant grant, boolean failHard, @Nullable String scopeAsked) {
    OAuthClients.Client client = currentClient(as);
    URI endpoint = as.getTokenEndpointURI();
    OAuthHttp.allowed(endpoint);
    TokenRequest.Builder b = switch (client.method().getValue()) {
      case "client_secret_basic" -> new TokenRequest.Builder(endpoint, new ClientSecretBasic(new ClientID(client.id()), new Secret(nonNull(client.secret()))), grant);
      case "client_secret_post" -> new TokenRequest.Builder(endpoint, new ClientSecretPost(new ClientID(client.id()), new Secret(nonNull(client.secret()))), grant);
      case "private_key_jwt" -> new TokenRequest.Builder(endpoint, ClientKeys.assertion(client.id(), as.getIssuer().getValue(), nonNull(config.clientKey())), grant);
      default -> new TokenRequest.Builder(endpoint, new ClientID(client.id()), grant);
    };
    b.resource(found().resource());
    if (scopeAsked != null) {
      b.scope(Scope.parse(scopeAsked));
    }
    TokenResponse answer;
    try {
      answer = TokenResponse.parse(http.send(b.build().toHTTPRequest()));
    } catch (ParseException e) {
      throw new OAuthFailure("the token answer of " + OAuthHttp.where(endpoint) + " is not valid (" + e.getMessage() + ")");
    }
    if (!answer.indicatesSuccess()) {
      String why = describe(answer.toErrorResponse().getErrorObject());
      if (!failHard) {
        LOG.info("the refresh token for MCP server {} was refused ({}); authorizing again", OAuthHttp.where(server), why);
        return null;
      }
      throw new OAuthFailure("authorization server " + OAuthHttp.where(endpoint) + " refused the token request: " + why);
    }
    return answer.toSuccessResponse();
  }

  private OAuthClients.Client currentClient(AuthorizationServerMetadata as) {
    if (config.clientId() != null) {
      return preRegistered(config.clientId(), as.getTokenEndpointAuthMethods());
    }
    OAuthClients.Client registered = savedClient();
    if (registered == null) {
      throw new OAuthFailure("no client is registered for MCP server " + OAuthHttp.where(server));
    }
    return registered;
  }

  /** The client saved with the tokens (registered dynamically, or a metadata document's), or null. */
  private OAuthClients.@Nullable Client savedClient() {
    ObjectNode s = saved;
    String id = s == null ? null : text(s, "client_id");
    if (s == null || id == null) {
      return null;
    }
    String method = text(s, "token_endpoint_auth_method");
    return new OAuthClients.Client(id, text(s, "client_secret"), ClientAuthenticationMethod.parse(method == null ? "none" : method));
  }

  private void keep(Tokens tokens, @Nullable String asked) {
    ObjectNode s = saved == null ? RcrtJson.object() : saved.deepCopy();
    s.put("access_token", tokens.getAccessToken().getValue());
    if (tokens.getRefreshToken() != null) {
      s.put("refresh_token", tokens.getRefreshToken().getValue());
    }
    Scope granted = tokens.getAccessToken().getScope();
    String scopeNow = granted != null ? granted.toString() : asked;
    if (scopeNow != null) {
      s.put("scope", scopeNow);
    }
    if (tokens.getAccessToken().getLifetime() > 0) {
      s.put("expires_at", Instant.now().getEpochSecond() + tokens.getAccessToken().getLifetime());
    }
    saved = s;
    scope = asked != null ? asked : scopeNow;
    accessToken = tokens.getAccessToken().getValue();
    save();
  }

  private void save() {
    ObjectNode s = saved;
    if (s != null) {
      config.tokens().save(server.toString(), s.toString());
    }
  }

  private static @Nullable String union(@Nullable String held, @Nullable String demanded) {
    Scope all = new Scope(); // an ordered set of scope tokens (RFC 6749 section 3.3)
    for (String s : new String[] {held, demanded}) {
      Scope parsed = s == null ? null : Scope.parse(s);
      if (parsed != null) {
        all.addAll(parsed);
      }
    }
    return all.isEmpty() ? null : all.toString();
  }








  private static String describe(ErrorObject error) {
    String code = error.getCode() == null ? "an error" : error.getCode();
    return error.getDescription() == null ? code : code + " (" + error.getDescription() + ")";
  }

  private static @Nullable String text(JsonNode node, String field) {
    JsonNode v = node.get(field);
    return v == null || !v.isTextual() ? null : v.asText();
  }

  private static String nonNull(@Nullable String secret) {
    if (secret == null) {
      throw new OAuthFailure("the client's token endpoint authentication needs a secret or key, and none is given");
    }
    return secret;
  }
}
