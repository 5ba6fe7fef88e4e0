package dev.rcrt.core;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.UncheckedIOException;

/**
 * The Jackson configuration every RCRT wire type is read and written with.
 *
 * <p>Unknown fields are ignored on read (wire compatibility), null properties are omitted on
 * write, and times are ISO-8601 strings. The mapper is thread-safe and must not be reconfigured.
 */
public final class RcrtJson {
  private static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .addModule(new JavaTimeModule())
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .serializationInclusion(JsonInclude.Include.NON_NULL)
          .build();

  private RcrtJson() {}

  /** The shared mapper. Thread-safe; do not reconfigure it. */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /** A new empty JSON object. */
  public static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  /**
   * Parses JSON text.
   *
   * @throws ValidationException if the text is not JSON, naming line and column
   */
  public static JsonNode parse(String json) {
    try {
      return MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new ValidationException("not valid JSON: " + e.getOriginalMessage() + location(e));
    }
  }

  /**
   * Reads a breadcrumb from its JSON wire form.
   *
   * @throws ValidationException if the text is not JSON or not a breadcrumb
   */
  public static Breadcrumb parseAs(String json) {
    try {
      return MAPPER.readValue(json, Breadcrumb.class);
    } catch (JsonProcessingException e) {
      throw new ValidationException("not a breadcrumb: " + e.getOriginalMessage() + location(e));
    }
  }

  /** Compact JSON text of a node or value. */
  public static String write(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code " at line L, column C"} for a parse error, or an empty string when unknown. */
  static String location(JsonProcessingException e) {
    var loc = e.getLocation();
    return loc == null ? "" : " at line " + loc.getLineNr() + ", column " + loc.getColumnNr();
  }
}
