package dev.rcrt.core.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.RcrtJson;
import java.io.UncheckedIOException;
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

  /** Digests the compact JSON of {@code context}. */
  public static ContentDigest of(JsonNode context) {
    byte[] bytes;
    try {
      bytes = RcrtJson.mapper().writeValueAsBytes(context);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
    try {
      byte[] hash = MessageDigest.getInstance("SHA-256").digest(bytes);
      return new ContentDigest("sha256:" + HexFormat.of().formatHex(hash), bytes.length);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JVM", e);
    }
  }
}
