package dev.rcrt.mcp;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * How this process signs in to MCP servers that require OAuth 2.1, as the MCP authorization
 * specification (2025-11-25) describes it. Given to {@link McpClientSession#connect(McpServerAddress,
 * Duration, java.util.Set, java.util.function.Consumer, java.util.function.Function, McpOAuth)}, it
 * is used only when a server answers {@code 401} or {@code 403}:
 *
 * <ol>
 *   <li>the server's protected-resource metadata (RFC 9728) is found from the {@code
 *       WWW-Authenticate} challenge's {@code resource_metadata}, else at the path-based then the
 *       root well-known URI; its {@code resource} must cover the server's URL (the same origin, a
 *       prefix of its path), or nothing is sent;
 *   <li>the authorization server's metadata (RFC 8414, else OpenID Connect discovery) is read; a
 *       server without protected-resource metadata is treated as its own authorization server, with
 *       the 2025-03-26 default endpoints ({@code /authorize}, {@code /token}, {@code /register})
 *       where it publishes no metadata either;
 *   <li>the client is the pre-registered one ({@link Builder#client}), else its client ID metadata
 *       document URL ({@link Builder#clientMetadataUrl}) where the authorization server supports
 *       those, else one registered dynamically (RFC 7591);
 *   <li>the scope is the challenge's, else every scope the resource lists, else none; {@code
 *       offline_access} is added where the authorization server lists it, for a refresh token;
 *   <li>the authorization code flow with PKCE (S256), {@code state} and the {@code resource}
 *       indicator (RFC 8707) runs through the {@link UserAgent}; the code is exchanged with the
 *       client authentication the registration and the server agree on ({@code client_secret_basic},
 *       {@code client_secret_post}, {@code private_key_jwt} or none);
 *   <li>the access token goes, as {@code Authorization: Bearer}, only to that MCP server; it is
 *       refreshed on a {@code 401} when a refresh token is held, and a {@code 403} with {@code
 *       insufficient_scope} asks again for the union of the scopes held and demanded (step-up).
 * </ol>
 *
 * Without a person, {@link Grant#CLIENT_CREDENTIALS} and {@link Grant#JWT_BEARER} replace steps 3
 * and 5 (see {@link Grant}); a client authenticates with its secret or a signed JWT ({@link
 * Builder#clientKey}). At most {@link Builder#maxAuthorizations} authorizations in a row for one
 * request (default 3); then the request fails {@code mcp_unauthorized} with one line that says why. Authorization
 * server URLs must be {@code https}, or {@code http} on a loopback address. Tokens, client secrets
 * and codes appear in no log line and no error; the {@link TokenStore} holds them between
 * processes as secret values. Immutable and thread-safe.
 */
public final class McpOAuth {
  private final @Nullable UserAgent userAgent;
  private final TokenStore tokens;
  private final Grant grant;
  private final @Nullable String clientId;
  private final @Nullable String clientSecret;
  private final @Nullable String clientKey;
  private final @Nullable Enterprise enterprise;
  private final @Nullable URI clientMetadataUrl;
  private final String clientName;
  private final int maxAuthorizations;
  private final Duration timeout;
  private final Duration authorizationWait;

  private McpOAuth(Builder b) {
    this.userAgent = b.userAgent;
    this.tokens = b.tokens;
    this.grant = b.grant;
    this.clientId = b.clientId;
    this.clientSecret = b.clientSecret;
    this.clientKey = b.clientKey;
    this.enterprise = b.enterprise;
    this.clientMetadataUrl = b.clientMetadataUrl;
    this.clientName = b.clientName;
    this.maxAuthorizations = b.maxAuthorizations;
    this.timeout = b.timeout;
    this.authorizationWait = b.authorizationWait;
  }

  /** Starts a configuration: the authorization code grant, with no user agent yet. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * This configuration with another client: {@code id} and {@code secret} as {@link Builder#client}
   * when {@code id} is given, and {@code metadataUrl} as {@link Builder#clientMetadataUrl} when
   * given; what is null is kept.
   */
  public McpOAuth forClient(@Nullable String id, @Nullable String secret, @Nullable URI metadataUrl) {
    Builder b = toBuilder();
    if (id != null) {
      b.client(id, secret);
    }
    if (metadataUrl != null) {
      b.clientMetadataUrl(metadataUrl);
    }
    return b.build();
  }

  /** A builder holding this configuration. */
  public Builder toBuilder() {
    Builder b = new Builder().tokens(tokens).clientName(clientName).maxAuthorizations(maxAuthorizations).timeout(timeout)
        .authorizationWait(authorizationWait);
    b.userAgent = userAgent;
    b.grant = grant;
    b.clientId = clientId;
    b.clientSecret = clientSecret;
    b.clientKey = clientKey;
    b.enterprise = enterprise;
    b.clientMetadataUrl = clientMetadataUrl;
    return b;
  }

  /** Where the authorization request is made, or null (then only the other grants, and saved tokens, work). */
  public @Nullable UserAgent userAgent() {
    return userAgent;
  }

  /** How tokens are obtained. */
  public Grant grant() {
    return grant;
  }

  /** The client's private key (PKCS#8 PEM) for {@code private_key_jwt}, or null. Never logged. */
  public @Nullable String clientKey() {
    return clientKey;
  }

  /** The enterprise identity of the {@link Grant#JWT_BEARER} grant, or null. */
  public @Nullable Enterprise enterprise() {
    return enterprise;
  }

  /** How tokens are obtained from the authorization server. */
  public enum Grant {
    /** A person authorizes through the {@link UserAgent} (OAuth 2.1 authorization code with PKCE); the default. */
    AUTHORIZATION_CODE,
    /**
     * The client acts for itself (OAuth 2.1 §4.2, MCP's SEP-1046 for machines): {@code
     * client_credentials} with the client's secret or private key, no person.
     */
    CLIENT_CREDENTIALS,
    /**
     * The person's enterprise identity provider vouches (MCP's SEP-990, cross-app access): the ID
     * token is exchanged at the provider for an identity assertion grant (RFC 8693, {@code id-jag}),
     * which the authorization server takes as a JWT bearer grant (RFC 7523), no browser.
     */
    JWT_BEARER
  }

  /**
   * The enterprise identity provider of the {@link Grant#JWT_BEARER} grant.
   *
   * @param tokenEndpoint where the ID token is exchanged
   * @param clientId this client's ID at the identity provider
   * @param idToken the person's ID token from that provider; a secret, never logged
   */
  public record Enterprise(URI tokenEndpoint, String clientId, String idToken) {
    /** Checks that no part is null. */
    public Enterprise {
      Objects.requireNonNull(tokenEndpoint, "tokenEndpoint");
      Objects.requireNonNull(clientId, "clientId");
      Objects.requireNonNull(idToken, "idToken");
    }

    @Override
    public String toString() {
      return "Enterprise[tokenEndpoint=" + tokenEndpoint + ", clientId=" + clientId + ", idToken=…]";
    }
  }

  /** Where tokens are kept between sessions. */
  public TokenStore tokens() {
    return tokens;
  }

  /** The pre-registered client ID, or null. */
  public @Nullable String clientId() {
    return clientId;
  }

  /** The pre-registered client's secret, or null (a public client). Never logged. */
  public @Nullable String clientSecret() {
    return clientSecret;
  }

  /** This client's ID metadata document URL, used as its client ID where supported, or null. */
  public @Nullable URI clientMetadataUrl() {
    return clientMetadataUrl;
  }

  /** The {@code client_name} a dynamic registration gives. */
  public String clientName() {
    return clientName;
  }

  /** The most authorizations in a row for one request. */
  public int maxAuthorizations() {
    return maxAuthorizations;
  }

  /** The limit of each exchange with an authorization server (not of the user agent). */
  public Duration timeout() {
    return timeout;
  }

  /**
   * How much longer than its own limit an MCP request may wait while a person authorizes (the
   * user agent's wait); zero by default, so a request's limit holds.
   */
  public Duration authorizationWait() {
    return authorizationWait;
  }

  /**
   * Where the person (or the host's automation) authorizes: it is shown the authorization URL and
   * returns the redirect the authorization server sent back. Called on a transport thread, at most
   * once at a time per session; the request that needed it waits.
   */
  public interface UserAgent {
    /**
     * The redirect URI registered for this client and sent in each authorization request, such as
     * {@code http://127.0.0.1:PORT/callback} for a local listener (RFC 8252). Called before each
     * authorization, so a listener may start here.
     */
    URI redirectUri() throws IOException;

    /**
     * Makes the authorization request and waits for its answer.
     *
     * @param authorization the authorization endpoint with every parameter ({@code client_id},
     *     {@code redirect_uri}, {@code code_challenge}, {@code state}, {@code scope}, {@code
     *     resource}): open it in a browser, or follow it
     * @return the URI the authorization server redirected to, starting with {@link #redirectUri()},
     *     with its {@code code} and {@code state}, or its {@code error}
     * @throws IOException when the answer cannot be had (the message is shown to the user)
     * @throws InterruptedException when the wait is interrupted
     */
    URI authorize(URI authorization) throws IOException, InterruptedException;
  }

  /**
   * Where a server's tokens and dynamic registration live between sessions and processes, keyed by
   * the server's resource URL. The value is a JSON text holding secrets: store it as a secret
   * (a vault, a file only its owner reads), never in a record or a log. Thread-safe.
   */
  public interface TokenStore {
    /** The saved value for {@code resource}, or empty. */
    Optional<String> load(String resource);

    /** Replaces the value for {@code resource}. */
    void save(String resource, String value);

    /** Kept in this object's memory only: every new process authorizes again. */
    static TokenStore inMemory() {
      Map<String, String> values = new ConcurrentHashMap<>();
      return new TokenStore() {
        @Override
        public Optional<String> load(String resource) {
          return Optional.ofNullable(values.get(resource));
        }

        @Override
        public void save(String resource, String value) {
          values.put(resource, value);
        }
      };
    }
  }

  /** Builds an {@link McpOAuth}; not thread-safe. */
  public static final class Builder {
    private @Nullable UserAgent userAgent;
    private TokenStore tokens = TokenStore.inMemory();
    private Grant grant = Grant.AUTHORIZATION_CODE;
    private @Nullable String clientId;
    private @Nullable String clientSecret;
    private @Nullable String clientKey;
    private @Nullable Enterprise enterprise;
    private @Nullable URI clientMetadataUrl;
    private String clientName = "rcrt";
    private int maxAuthorizations = 3;
    private Duration timeout = Duration.ofSeconds(30);
    private Duration authorizationWait = Duration.ZERO;

    private Builder() {}

    /** Where a person authorizes (the authorization code grant): a browser, or the host's automation. */
    public Builder userAgent(UserAgent userAgent) {
      this.userAgent = Objects.requireNonNull(userAgent, "userAgent");
      return this;
    }

    /**
     * The {@link Grant#CLIENT_CREDENTIALS} grant: the client given with {@link #client} or {@link
     * #clientKey} gets tokens for itself.
     */
    public Builder clientCredentials() {
      this.grant = Grant.CLIENT_CREDENTIALS;
      return this;
    }

    /**
     * The {@link Grant#JWT_BEARER} grant through {@code enterprise}; the client given with {@link
     * #client} authenticates at the authorization server.
     */
    public Builder enterpriseIdentity(Enterprise enterprise) {
      this.enterprise = Objects.requireNonNull(enterprise, "enterprise");
      this.grant = Grant.JWT_BEARER;
      return this;
    }

    /**
     * A client registered beforehand that authenticates with a signed JWT ({@code private_key_jwt},
     * RFC 7523 §2.2): ES256 for an EC key, RS256 for an RSA key.
     *
     * @param pkcs8Pem its private key, PEM ({@code -----BEGIN PRIVATE KEY-----}), already resolved
     *     from its {@code secret:} reference
     */
    public Builder clientKey(String id, String pkcs8Pem) {
      this.clientId = Objects.requireNonNull(id, "id");
      this.clientKey = Objects.requireNonNull(pkcs8Pem, "pkcs8Pem");
      this.clientSecret = null;
      return this;
    }

    /** Where tokens are kept; default {@link TokenStore#inMemory()}. */
    public Builder tokens(TokenStore tokens) {
      this.tokens = Objects.requireNonNull(tokens, "tokens");
      return this;
    }

    /**
     * A client registered with the authorization server beforehand (no dynamic registration).
     *
     * @param secret its secret, already resolved from its {@code secret:} reference, or null for a
     *     public client
     */
    public Builder client(String id, @Nullable String secret) {
      this.clientId = Objects.requireNonNull(id, "id");
      this.clientSecret = secret;
      this.clientKey = null;
      return this;
    }

    /** This client's ID metadata document (an {@code https} URL), used as its client ID where the authorization server supports it. */
    public Builder clientMetadataUrl(URI url) {
      if (!"https".equals(url.getScheme()) || url.getRawPath() == null || url.getRawPath().length() < 2) {
        throw new IllegalArgumentException("a client ID metadata document is an https URL with a path, found '" + url + "'");
      }
      this.clientMetadataUrl = url;
      return this;
    }

    /** The {@code client_name} of a dynamic registration; default {@code rcrt}. */
    public Builder clientName(String name) {
      this.clientName = Objects.requireNonNull(name, "name");
      return this;
    }

    /** The most authorizations in a row for one request, 1 to 10; default 3. */
    public Builder maxAuthorizations(int max) {
      if (max < 1 || max > 10) {
        throw new IllegalArgumentException("maxAuthorizations is 1 to 10, found " + max);
      }
      this.maxAuthorizations = max;
      return this;
    }

    /** The limit of each exchange with an authorization server; default 30 s. */
    public Builder timeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("timeout must be positive, found " + timeout);
      }
      this.timeout = timeout;
      return this;
    }

    /**
     * How much longer than its own limit an MCP request may wait while a person authorizes, such
     * as the browser's 5 minutes at a terminal; default zero.
     */
    public Builder authorizationWait(Duration wait) {
      if (wait.isNegative()) {
        throw new IllegalArgumentException("authorizationWait must not be negative, found " + wait);
      }
      this.authorizationWait = wait;
      return this;
    }

    /**
     * The configuration.
     *
     * @throws IllegalStateException when a client-credentials or JWT-bearer grant has no
     *     pre-registered client
     */
    public McpOAuth build() {
      if (grant != Grant.AUTHORIZATION_CODE && clientId == null) {
        throw new IllegalStateException("the " + grant.name().toLowerCase(java.util.Locale.ROOT) + " grant needs a pre-registered client (client or clientKey)");
      }
      return new McpOAuth(this);
    }
  }
}
