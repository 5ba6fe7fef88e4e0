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
 * write, and times are ISO-8601 strings. Reading is strict where leniency would hide an attack or a
 * bug: a repeated key in one object is an error (not last-wins), and a number outside the range of
 * a double (such as {@code 1e400}) is an error, not infinity. The mapper is thread-safe and must
 * not be reconfigured.
 */
public final class RcrtJson {
  private static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .addModule(new JavaTimeModule())
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .enable(com.fasterxml.jackson.core.StreamReadFeature.STRICT_DUPLICATE_DETECTION)
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
    JsonNode tree;
    try {
      tree = MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new ValidationException("not valid JSON: " + e.getOriginalMessage() + location(e));
    }
    checkFinite(tree);
    return tree;
  }

  /** @throws ValidationException if a number in {@code tree} overflowed to infinity, naming its pointer */
  static void checkFinite(JsonNode tree) {
    String infinite = nonFinite(tree, "");
    if (infinite != null) {
      throw new ValidationException("not valid JSON: the number at " + (infinite.isEmpty() ? "/" : infinite)
          + " is outside the range of a double; send it as a string if it must be that large");
    }
  }

  /** The pointer of the first number that overflowed to infinity, or null. Jackson bounds the depth. */
  private static @org.jspecify.annotations.Nullable String nonFinite(JsonNode node, String at) {
    if (node.isFloatingPointNumber()) {
      return Double.isFinite(node.doubleValue()) ? null : at;
    }
    if (node.isObject()) {
      for (var p : node.properties()) {
        String found = nonFinite(p.getValue(), at + "/" + p.getKey());
        if (found != null) {
          return found;
        }
      }
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        String found = nonFinite(node.get(i), at + "/" + i);
        if (found != null) {
          return found;
        }
      }
    }
    return null;
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
    String where = loc == null ? "" : " at line " + loc.getLineNr() + ", column " + loc.getColumnNr();
    if (e.getProcessor() instanceof com.fasterxml.jackson.core.JsonParser parser && parser.getParsingContext() != null) {
      String pointer = parser.getParsingContext().pathAsPointer().toString();
      if (!pointer.isEmpty()) {
        where += " (" + pointer + ")";
      }
    }
    return where;
  }
}
