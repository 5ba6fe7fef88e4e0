package dev.rcrt.core.spi;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * RCRT's content checksum and size: {@code "sha256:" + hex(sha256(compact JSON of context))}, and
 * the byte length of that JSON.
 *
 * @param checksum the checksum text
 * @param sizeBytes UTF-8 byte length of the compact JSON
 */
public record ContentDigest(String checksum, long sizeBytes) {
  private static final com.fasterxml.jackson.databind.ObjectWriter COMPACT = dev.rcrt.core.internal.Mapper.SHARED.writer();
  private static final ThreadLocal<MessageDigest> SHA256 =
      ThreadLocal.withInitial(
          () -> {
            try {
              return MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
              throw new IllegalStateException("SHA-256 is required of every JVM", e);
            }
          });

  /** Digests the compact JSON of {@code context}. */
  public static ContentDigest of(JsonNode context) {
    byte[] bytes;
    try {
      bytes = COMPACT.writeValueAsBytes(context);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
    byte[] hash = SHA256.get().digest(bytes);
    return new ContentDigest("sha256:" + HexFormat.of().formatHex(hash), bytes.length);
  }

  /**
   * The SHA-256 of {@code text}'s UTF-8 bytes as 64 lowercase hex digits: the one way this SDK
   * derives a name from a text it must not hold (a session id, a server address, a source).
   * Thread-safe.
   */
  public static String sha256Hex(String text) {
    return HexFormat.of().formatHex(SHA256.get().digest(text.getBytes(StandardCharsets.UTF_8)));
  }
}
