package dev.rcrt.http.internal;

import jakarta.servlet.http.HttpServletRequest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * What every request to the A2A and AG-UI servers passes before anything of it is served: its {@code Host} must
 * be an allowed name (a DNS-rebinding page cannot reach a loopback server), an {@code Origin}, when
 * sent, an allowed origin or the server's own ({@code http://} and the {@code Host} it was reached at:
 * a page the server itself served) (403 otherwise); JSON-RPC requests carry the bearer token when there is
 * one (401; compared in constant time; cards stay public, as A2A expects); a body past the cap is
 * refused (413: {@link BodyFirst} reads it).
 *
 * @param allowedHosts host names a {@code Host} header may name (any port); empty for any
 * @param allowedOrigins origins an {@code Origin} header may name, such as {@code
 *     https://app.example.com}; a request without one passes
 * @param bearerToken the token JSON-RPC requests must send, or null for none
 * @param maxRequestBytes the largest request body read
 */
public record RequestGate(Set<String> allowedHosts, Set<String> allowedOrigins, @Nullable String bearerToken, int maxRequestBytes) {
  /** Names of this machine's loopback interface, the default allowed hosts of a server bound to one. */
  public static final List<String> LOOPBACK_NAMES = List.of("localhost", "127.0.0.1", "::1");

  /** Copies. */
  public RequestGate {
    allowedHosts = Set.copyOf(allowedHosts);
    allowedOrigins = Set.copyOf(allowedOrigins);
  }

  /** Why the request's Host or Origin is refused (403), or null when it passes. */
  public @Nullable String refusal(HttpServletRequest request) {
    String host = request.getHeader("Host");
    String name = host == null ? null : hostName(host);
    if (!allowedHosts.isEmpty() && (name == null || !allowedHosts.contains(name))) {
      return "Host '" + (host == null ? "" : host) + "' is not one this server answers to";
    }
    String origin = request.getHeader("Origin");
    if (origin != null && !allowedOrigins.contains(origin) && !origin.equals("http://" + host)) {
      return "Origin '" + origin + "' is not allowed";
    }
    return null;
  }

  /**
   * Whether the request carries the bearer token (always, when there is none): {@code
   * Authorization: Bearer <token>}, the scheme in any case (RFC 9110 section 11.1), the token
   * compared in constant time.
   */
  public boolean authorized(HttpServletRequest request) {
    if (bearerToken == null) {
      return true;
    }
    String given = request.getHeader("Authorization");
    if (given == null || given.length() < 7 || !given.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return false;
    }
    return MessageDigest.isEqual(bearerToken.getBytes(StandardCharsets.UTF_8), given.substring(7).getBytes(StandardCharsets.UTF_8));
  }

  /** A {@code Host} value (RFC 9110 section 7.2): a DNS name, IPv4 address or bracketed IPv6 literal, then an optional port. */
  private static final Pattern HOST = Pattern.compile("(\\[[0-9a-f:.]+]|[a-z0-9._~-]+)(:[0-9]{0,5})?");

  /**
   * The host name of a {@code Host} header: without the port, an IPv6 literal without brackets, lower
   * case; null for anything else ({@code localhost:80@evil.example}, a user part, spaces or other
   * characters inside, a port that is not digits), which no allowed host matches. Optional
   * whitespace around the value is not part of it (RFC 9110 section 5.5).
   */
  static @Nullable String hostName(String hostHeader) {
    Matcher m = HOST.matcher(hostHeader.strip().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      return null;
    }
    String name = m.group(1);
    return name.startsWith("[") ? name.substring(1, name.length() - 1) : name;
  }
}
