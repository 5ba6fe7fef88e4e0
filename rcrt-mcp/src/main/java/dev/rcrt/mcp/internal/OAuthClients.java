package dev.rcrt.mcp.internal;

import com.nimbusds.oauth2.sdk.GrantType;
import com.nimbusds.oauth2.sdk.ParseException;
import com.nimbusds.oauth2.sdk.ResponseType;
import com.nimbusds.oauth2.sdk.as.AuthorizationServerMetadata;
import com.nimbusds.oauth2.sdk.auth.ClientAuthenticationMethod;
import com.nimbusds.oauth2.sdk.client.ClientInformation;
import com.nimbusds.oauth2.sdk.client.ClientInformationResponse;
import com.nimbusds.oauth2.sdk.client.ClientMetadata;
import com.nimbusds.oauth2.sdk.client.ClientRegistrationErrorResponse;
import com.nimbusds.oauth2.sdk.client.ClientRegistrationRequest;
import com.nimbusds.oauth2.sdk.client.ClientRegistrationResponse;
import java.net.URI;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Who this client is at an authorization server, and how it authenticates at the token endpoint:
 * a pre-registered client, or one registered dynamically (RFC 7591) as a public client of the
 * authorization code and refresh token grants. Stateless.
 */
final class OAuthClients {
  private OAuthClients() {}

  /**
   * A client and how it authenticates at the token endpoint.
   *
   * @param secret its secret, or null (a public client, or one with a key)
   */
  record Client(String id, @Nullable String secret, ClientAuthenticationMethod method) {
    @Override
    public String toString() {
      return "Client[id=" + id + ", method=" + method + "]";
    }
  }

  /** A pre-registered client: {@code private_key_jwt} with a key, its secret's method with a secret, else a public client. */
  static Client preRegistered(String id, @Nullable String secret, boolean key, @Nullable List<ClientAuthenticationMethod> supported) {
    if (key) {
      return new Client(id, null, ClientAuthenticationMethod.PRIVATE_KEY_JWT);
    }
    return new Client(id, secret, secret == null ? ClientAuthenticationMethod.NONE : secretMethod(supported));
  }

  /**
   * Registers a client for {@code redirect} at {@code as}: public ({@code none}) where the server
   * allows it, else with the secret method it lists; the method the server answers with wins.
   *
   * @throws OAuthFailure when the server offers no registration, refuses, or answers invalidly
   */
  static Client register(OAuthHttp http, AuthorizationServerMetadata as, URI redirect, String clientName) {
    String issuer = as.getIssuer().getValue();
    List<ClientAuthenticationMethod> supported = as.getTokenEndpointAuthMethods();
    URI registration = as.getRegistrationEndpointURI();
    if (registration == null) {
      throw new OAuthFailure("authorization server " + issuer + " offers no dynamic client registration: register a client there and give its"
          + " client ID (and secret)");
    }
    OAuthHttp.allowed(registration);
    ClientMetadata md = new ClientMetadata();
    md.setRedirectionURI(redirect);
    md.setName(clientName);
    md.setGrantTypes(Set.of(GrantType.AUTHORIZATION_CODE, GrantType.REFRESH_TOKEN));
    md.setResponseTypes(Set.of(ResponseType.CODE));
    md.setTokenEndpointAuthMethod(supported == null || supported.contains(ClientAuthenticationMethod.NONE) ? ClientAuthenticationMethod.NONE
        : secretMethod(supported));
    ClientRegistrationResponse answer;
    try {
      answer = ClientRegistrationResponse.parse(http.send(new ClientRegistrationRequest(registration, md, null).toHTTPRequest()));
    } catch (ParseException e) {
      throw new OAuthFailure("the registration answer of " + OAuthHttp.where(registration) + " is not valid (" + e.getMessage() + ")");
    }
    if (answer instanceof ClientRegistrationErrorResponse refused) {
      String code = refused.getErrorObject().getCode();
      String description = refused.getErrorObject().getDescription();
      throw new OAuthFailure("authorization server " + issuer + " refused to register this client: " + (code == null ? "an error" : code)
          + (description == null ? "" : " (" + description + ")"));
    }
    ClientInformation info = ((ClientInformationResponse) answer).getClientInformation();
    String secret = info.getSecret() == null ? null : info.getSecret().getValue();
    ClientAuthenticationMethod method = info.getMetadata().getTokenEndpointAuthMethod();
    if (method == null) {
      method = secret == null ? ClientAuthenticationMethod.NONE : secretMethod(supported);
    }
    return new Client(info.getID().getValue(), secret, method);
  }

  /** {@code client_secret_basic} unless the server lists only {@code client_secret_post} of the two (RFC 8414's default is basic). */
  static ClientAuthenticationMethod secretMethod(@Nullable List<ClientAuthenticationMethod> supported) {
    if (supported != null && !supported.contains(ClientAuthenticationMethod.CLIENT_SECRET_BASIC)
        && supported.contains(ClientAuthenticationMethod.CLIENT_SECRET_POST)) {
      return ClientAuthenticationMethod.CLIENT_SECRET_POST;
    }
    return ClientAuthenticationMethod.CLIENT_SECRET_BASIC;
  }
}
