package dev.rcrt.core;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.internal.Mapper;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import org.jspecify.annotations.Nullable;

/**
 * The Jackson configuration every RCRT wire type is read and written with.
 *
 * <p>Unknown fields are ignored on read (wire compatibility), null properties are omitted on
 * write, and times are ISO-8601 strings. Reading is strict where leniency would hide an attack or a
 * bug: a repeated key in one object is an error (not last-wins), and a number outside the range of
 * a double (such as {@code 1e400}, or an integer of 400 digits) is an error, not infinity.
 *
 * <p>A read-only facade: the mapper behind it is shared by the whole SDK and no caller can
 * reconfigure it. Thread-safe.
 */
public final class RcrtJson {
  private static final ObjectMapper MAPPER = Mapper.SHARED;

  private RcrtJson() {}

  /** A new empty JSON object. */
  public static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  /** A new empty JSON array. */
  public static ArrayNode array() {
    return MAPPER.createArrayNode();
  }

  /** The factory of JSON nodes (text, numbers, {@code null}); stateless and thread-safe. */
  public static JsonNodeFactory nodes() {
    return MAPPER.getNodeFactory();
  }

  /**
   * {@code value} (a record, map, list, string, number or node) as a JSON tree, with RCRT's field
   * names, typed as the caller expects it ({@code ObjectNode} for a record or map, as Jackson's
   * {@code valueToTree}); {@code null} gives a JSON {@code null} node.
   *
   * @throws IllegalArgumentException if the value cannot be written as JSON
   * @throws ClassCastException if the tree is not of the type the caller expects
   */
  @SuppressWarnings("unchecked")
  public static <T extends JsonNode> T toTree(@Nullable Object value) {
    JsonNode tree = MAPPER.valueToTree(value);
    return (T) (tree == null ? MAPPER.getNodeFactory().nullNode() : tree);
  }

  /**
   * {@code value} converted to {@code type} through its JSON form (a tree to a map, a record to a
   * tree).
   *
   * @throws IllegalArgumentException if it does not convert
   */
  public static <T> T convert(Object value, Class<T> type) {
    return MAPPER.convertValue(value, type);
  }

  /** {@link #convert(Object, Class)} for a generic type such as {@code Map<String, Object>}. */
  public static <T> T convert(Object value, TypeReference<T> type) {
    return MAPPER.convertValue(value, type);
  }

  /**
   * Reads {@code tree} as a wire type such as {@link BreadcrumbCreate} or {@link BreadcrumbUpdate}.
   *
   * @throws ValidationException if it does not fit the type; the message is the type's own
   *     validation message when its constructor refused the values
   */
  public static <T> T read(JsonNode tree, Class<T> type) {
    try {
      return MAPPER.treeToValue(tree, type);
    } catch (JsonProcessingException e) {
      if (e.getCause() instanceof RcrtException r) {
        throw new ValidationException(r.getMessage());
      }
      throw new ValidationException(type.getSimpleName() + ": " + e.getOriginalMessage() + location(e));
    }
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

  /**
   * Checks a tree read by other means than {@link #parse} (a lenient reader of a model's text).
   *
   * @throws ValidationException if a number in {@code tree} is beyond the range of a double, naming its pointer
   */
  public static void checkFinite(JsonNode tree) {
    if (allFinite(tree)) {
      return; // the common case walks the tree without building a pointer per node
    }
    String infinite = nonFinite(tree, "");
    if (infinite != null) {
      throw new ValidationException("not valid JSON: the number at " + (infinite.isEmpty() ? "/" : infinite)
          + " is outside the range of a double; send it as a string if it must be that large");
    }
  }

  /** Whether no number in {@code node} is beyond a double. */
  private static boolean allFinite(JsonNode node) {
    if (node.isFloatingPointNumber() || node.isBigInteger()) {
      return Double.isFinite(node.doubleValue());
    }
    if (node.isContainerNode()) {
      for (JsonNode child : node) {
        if (!allFinite(child)) {
          return false;
        }
      }
    }
    return true;
  }

  /** The pointer of the first number beyond a double (infinite as one), or null. Jackson bounds the depth. */
  private static @org.jspecify.annotations.Nullable String nonFinite(JsonNode node, String at) {
    if (node.isFloatingPointNumber() || node.isBigInteger()) {
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

  /** Indented JSON text of a node or value, for people to read (the CLI's output). */
  public static String writePretty(Object value) {
    try {
      return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Compact JSON of a node or value written to {@code out}, which is left open. */
  public static void write(OutputStream out, Object value) throws IOException {
    MAPPER.writer().without(JsonGenerator.Feature.AUTO_CLOSE_TARGET).writeValue(out, value);
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
