package dev.rcrt.mcp.internal;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A resource server's {@code Bearer} challenge ({@code WWW-Authenticate}, RFC 6750 §3, with RFC
 * 9728's {@code resource_metadata}): its auth-params, names lower-cased.
 *
 * @param params the Bearer challenge's parameters, quoted values unquoted; empty when the header
 *     is absent or names no Bearer challenge
 */
record OAuthChallenge(Map<String, String> params) {

  static final OAuthChallenge NONE = new OAuthChallenge(Map.of());

  /** The Bearer challenge of {@code header} (other schemes' challenges are skipped). */
  static OAuthChallenge parse(@Nullable String header) {
    if (header == null) {
      return NONE;
    }
    int at = indexOfScheme(header);
    if (at < 0) {
      return NONE;
    }
    Map<String, String> params = new LinkedHashMap<>();
    int i = at + "bearer".length();
    int n = header.length();
    while (i < n) {
      while (i < n && (header.charAt(i) == ' ' || header.charAt(i) == ',' || header.charAt(i) == '\t')) {
        i++;
      }
      int nameStart = i;
      while (i < n && header.charAt(i) != '=' && header.charAt(i) != ' ' && header.charAt(i) != ',') {
        i++;
      }
      String name = header.substring(nameStart, i).toLowerCase(Locale.ROOT);
      while (i < n && header.charAt(i) == ' ') {
        i++;
      }
      if (i >= n || header.charAt(i) != '=') {
        break; // a token68 or the next scheme: the Bearer challenge's params end here
      }
      i++;
      while (i < n && header.charAt(i) == ' ') {
        i++;
      }
      StringBuilder value = new StringBuilder();
      if (i < n && header.charAt(i) == '"') {
        i++;
        while (i < n && header.charAt(i) != '"') {
          if (header.charAt(i) == '\\' && i + 1 < n) {
            i++;
          }
          value.append(header.charAt(i++));
        }
        i++;
      } else {
        while (i < n && header.charAt(i) != ',' && header.charAt(i) != ' ') {
          value.append(header.charAt(i++));
        }
      }
      if (!name.isEmpty()) {
        params.putIfAbsent(name, value.toString());
      }
    }
    return new OAuthChallenge(Map.copyOf(params));
  }

  private static int indexOfScheme(String header) {
    String lower = header.toLowerCase(Locale.ROOT);
    int from = 0;
    while (true) {
      int at = lower.indexOf("bearer", from);
      if (at < 0) {
        return -1;
      }
      boolean starts = at == 0 || lower.charAt(at - 1) == ' ' || lower.charAt(at - 1) == ',';
      boolean ends = at + 6 == lower.length() || lower.charAt(at + 6) == ' ';
      if (starts && ends) {
        return at;
      }
      from = at + 6;
    }
  }

  /** The {@code scope} demanded, or null. */
  @Nullable String scope() {
    String s = params.get("scope");
    return s == null || s.isBlank() ? null : s.trim();
  }

  /** The {@code error} code, such as {@code insufficient_scope}, or null. */
  @Nullable String error() {
    return params.get("error");
  }

  /** The {@code resource_metadata} URL, or null. */
  @Nullable String resourceMetadata() {
    return params.get("resource_metadata");
  }

  /** The error and its description, as a message shows them. */
  String describe() {
    String e = error();
    String d = params.get("error_description");
    return e == null ? "no error code" : d == null ? e : e + ": " + d;
  }
}
