package dev.rcrt.mcp.internal;

/**
 * Why this client could not get or use an authorization: one line for the user, naming the server
 * or endpoint and what to do; never a token, a secret, a code or a Java class name.
 */
public final class OAuthFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public OAuthFailure(String message) {
    super(message, null, false, false);
  }
}
