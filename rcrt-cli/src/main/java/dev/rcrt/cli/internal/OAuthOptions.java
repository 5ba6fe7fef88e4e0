package dev.rcrt.cli.internal;

import dev.rcrt.mcp.McpOAuth;
import dev.rcrt.tools.SecretResolver;
import java.net.URI;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * The options of the {@code mcp} commands that sign in to a server requiring OAuth: how the
 * authorization is completed and which client to use. Tokens are kept in {@link OAuthTokenFiles}.
 */
final class OAuthOptions {
  /** How the authorization request is completed. */
  enum Authorize { BROWSER, FOLLOW, NONE }

  @Option(names = "--authorize", paramLabel = "HOW", converter = AuthorizeConverter.class,
      description = {"When the server requires OAuth: browser (the default at a terminal: the address to open is",
          "printed, and the redirect comes back to a listener on this machine), follow (no person: the",
          "authorization server must redirect at once, as test servers do), or none (fail; the default",
          "without a terminal). Tokens are kept for later commands in $RCRT_OAUTH_DIR, else",
          "$XDG_CONFIG_HOME/rcrt/oauth, else ~/.config/rcrt/oauth."})
  @Nullable Authorize authorize;

  @Option(names = "--client-id", paramLabel = "ID", description = "A client registered beforehand with the authorization server.")
  @Nullable String clientId;

  @Option(names = "--client-secret", paramLabel = "secret:NAME", description = "That client's secret, as a secret:NAME reference (read from the environment).")
  @Nullable String clientSecret;

  @Option(names = "--client-key", paramLabel = "secret:NAME",
      description = "That client's private key (PKCS#8 PEM), as a secret:NAME reference: it signs its token requests (private_key_jwt).")
  @Nullable String clientKey;

  @Option(names = "--client-credentials",
      description = "No person: the client (--client-id with --client-secret or --client-key) gets tokens for itself (client_credentials).")
  boolean clientCredentials;

  @Option(names = "--id-token", paramLabel = "secret:NAME",
      description = {"No browser: your enterprise identity provider's ID token, as a secret:NAME reference, exchanged at",
          "--idp-token-endpoint for an identity assertion the authorization server accepts (MCP SEP-990)."})
  @Nullable String idToken;

  @Option(names = "--idp-token-endpoint", paramLabel = "URL", description = "The identity provider's token endpoint, with --id-token.")
  @Nullable URI idpTokenEndpoint;

  @Option(names = "--idp-client-id", paramLabel = "ID", description = "This client's ID at the identity provider, with --id-token.")
  @Nullable String idpClientId;

  @Option(names = "--client-metadata-url", paramLabel = "URL",
      description = "This client's ID metadata document (https), used as its client ID where the authorization server supports that.")
  @Nullable URI clientMetadataUrl;

  /**
   * The OAuth configuration these options give.
   *
   * @throws IllegalArgumentException when the client secret is not a {@code secret:NAME} reference
   *     or is not set
   */
  McpOAuth oauth(Cli cli) {
    Authorize how = authorize != null ? authorize : cli.interactive() ? Authorize.BROWSER : Authorize.NONE;
    McpOAuth.UserAgent agent = switch (how) {
      case BROWSER -> OAuthUserAgents.browser(cli);
      case FOLLOW -> OAuthUserAgents.follow();
      case NONE -> OAuthUserAgents.none(authorize == null ? "the server requires authorization, and nobody is at a terminal to give it; run"
          + " the command at a terminal once (or with --authorize follow for a server that approves at once)"
          : "the server requires authorization and --authorize none was given");
    };
    McpOAuth.Builder b = McpOAuth.builder().userAgent(agent).tokens(OAuthTokenFiles.of(cli));
    if (how == Authorize.BROWSER) {
      b.authorizationWait(OAuthUserAgents.BROWSER_WAIT);
    }
    if (clientId != null && clientKey != null) {
      b.clientKey(clientId, secret("--client-key", clientKey, cli));
    } else if (clientId != null) {
      b.client(clientId, clientSecret == null ? null : secret("--client-secret", clientSecret, cli));
    } else if (clientSecret != null || clientKey != null) {
      throw new IllegalArgumentException((clientKey != null ? "--client-key" : "--client-secret") + " needs --client-id");
    }
    if (clientCredentials) {
      b.clientCredentials();
    }
    if (idToken != null) {
      if (idpTokenEndpoint == null || idpClientId == null) {
        throw new IllegalArgumentException("--id-token needs --idp-token-endpoint and --idp-client-id");
      }
      b.enterpriseIdentity(new McpOAuth.Enterprise(idpTokenEndpoint, idpClientId, secret("--id-token", idToken, cli)));
    }
    if (clientMetadataUrl != null) {
      b.clientMetadataUrl(clientMetadataUrl);
    }
    return b.build();
  }

  /** The {@code server.oauth} object an imported record keeps: the client, its secret as the reference given. */
  com.fasterxml.jackson.databind.node.ObjectNode recordForm() {
    var o = dev.rcrt.core.RcrtJson.object();
    if (clientId != null) {
      o.put("client_id", clientId);
    }
    if (clientSecret != null) {
      o.put("client_secret", clientSecret);
    }
    if (clientKey != null) {
      o.put("client_key", clientKey);
    }
    if (clientCredentials) {
      o.put("grant", "client_credentials");
    }
    if (clientMetadataUrl != null) {
      o.put("client_metadata_url", clientMetadataUrl.toString());
    }
    return o;
  }

  private static String secret(String option, String reference, Cli cli) {
    if (!reference.startsWith("secret:")) {
      throw new IllegalArgumentException(option + " takes a secret:NAME reference, not the secret itself (a command line is visible to"
          + " other users of this machine)");
    }
    String name = reference.substring("secret:".length());
    return SecretResolver.environment(cli.env()).resolve(name)
        .orElseThrow(() -> new IllegalArgumentException("secret '" + name + "' is not set in the environment"));
  }

  /** Reads {@code browser}, {@code follow} or {@code none}. */
  static final class AuthorizeConverter implements ITypeConverter<Authorize> {
    @Override
    public Authorize convert(String value) {
      try {
        return Authorize.valueOf(value.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException("'" + value + "' is not a way to authorize; use browser, follow or none");
      }
    }
  }
}
