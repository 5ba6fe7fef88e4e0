package dev.rcrt.mcp.internal;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.oauth2.sdk.auth.PrivateKeyJWT;
import com.nimbusds.oauth2.sdk.id.ClientID;
import java.net.URI;
import java.security.KeyFactory;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;

/**
 * A client's {@code private_key_jwt} authentication (RFC 7523 §2.2): a JWT signed with its private
 * key, issued and subjected by its client ID, for the authorization server's issuer. The key is
 * read from PKCS#8 PEM by the JDK; ES256 for an EC key, RS256 for an RSA key.
 */
final class ClientKeys {
  private ClientKeys() {}

  /** A fresh assertion (unique {@code jti}, 5 minutes) for {@code clientId} at {@code issuer}. */
  static PrivateKeyJWT assertion(String clientId, String issuer, String pkcs8Pem) {
    PrivateKey key = key(pkcs8Pem);
    try {
      JWSAlgorithm alg = key instanceof ECPrivateKey ? JWSAlgorithm.ES256 : JWSAlgorithm.RS256;
      return new PrivateKeyJWT(new ClientID(clientId), URI.create(issuer), alg, key, null, null);
    } catch (JOSEException e) {
      throw new OAuthFailure("the client key could not sign its assertion (" + e.getMessage() + ")");
    }
  }

  private static PrivateKey key(String pem) {
    byte[] der;
    try {
      der = Base64.getMimeDecoder().decode(pem.replaceAll("-----(BEGIN|END) PRIVATE KEY-----", ""));
    } catch (IllegalArgumentException e) {
      throw new OAuthFailure("the client key is not PEM (-----BEGIN PRIVATE KEY-----)");
    }
    for (String algorithm : new String[] {"EC", "RSA"}) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (InvalidKeySpecException | NoSuchAlgorithmException e) {
        // try the next kind
      }
    }
    throw new OAuthFailure("the client key is not a PKCS#8 EC or RSA private key (-----BEGIN PRIVATE KEY-----)");
  }
}
