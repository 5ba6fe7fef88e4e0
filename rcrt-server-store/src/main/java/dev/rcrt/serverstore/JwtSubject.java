package dev.rcrt.serverstore;

import dev.rcrt.core.RcrtJson;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.jspecify.annotations.Nullable;

/** The agent a JWT names ({@code sub}, else {@code agent_id}), read without checking its signature. */
final class JwtSubject {
  private JwtSubject() {}

  static @Nullable String of(String token) {
    String[] parts = token.split("\\.");
    if (parts.length < 2) {
      return null;
    }
    try {
      var claims = RcrtJson.parse(new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8));
      String sub = claims.path("sub").asText(claims.path("agent_id").asText(""));
      return sub.isBlank() ? null : sub;
    } catch (RuntimeException e) {
      return null;
    }
  }
}
