package dev.rcrt.core;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.RcrtJson;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.everit.json.schema.Schema;
import org.everit.json.schema.SchemaException;
import org.everit.json.schema.ValidationException;
import org.everit.json.schema.loader.SchemaClient;
import org.everit.json.schema.loader.SchemaLoader;
import org.json.JSONObject;

/**
 * A JSON Schema compiled once with everit-json-schema (draft 7, with draft 4/6 documents read as
 * they declare), then used to validate Jackson trees.
 *
 * <p>Remote {@code $ref}s are refused: a tool's schema must never make the runner fetch a URL.
 * Thread-safe once built.
 */
public final class JsonSchema {
  private static final Pattern TYPE_MISMATCH = Pattern.compile("expected type: (\\w+), found: (\\w+)");
  private static final SchemaClient NO_REMOTE_REFS =
      url -> {
        throw new SchemaException("remote $ref '" + url + "' is not allowed in tool schemas");
      };

  private final Schema schema;

  private JsonSchema(Schema schema) {
    this.schema = schema;
  }

  /**
   * Compiles a schema.
   *
   * @throws dev.rcrt.core.ValidationException if the document is not a valid JSON Schema
   */
  public static JsonSchema compile(JsonNode schemaJson) {
    try {
      JSONObject raw = new JSONObject(RcrtJson.write(schemaJson));
      Schema schema =
          SchemaLoader.builder()
              .schemaJson(raw)
              .schemaClient(NO_REMOTE_REFS)
              .draftV7Support()
              .build()
              .load()
              .build();
      return new JsonSchema(schema);
    } catch (SchemaException | org.json.JSONException e) {
      throw new dev.rcrt.core.ValidationException("not a valid JSON Schema: " + e.getMessage());
    }
  }

  /**
   * Validates a value.
   *
   * @return every violation as {@code "<JSON pointer>: <message>"}, such as {@code "/value:
   *     expected number, found string"} (the pointer is empty for the root); empty when valid
   */
  public List<String> violations(JsonNode value) {
    Object json = toOrgJson(value);
    try {
      schema.validate(json);
      return List.of();
    } catch (ValidationException e) {
      List<String> out = new ArrayList<>();
      collect(e, out);
      return out;
    }
  }

  /** The org.json form everit validates, built by walking the tree (no text round trip). */
  private static Object toOrgJson(JsonNode node) {
    if (node.isObject()) {
      org.json.JSONObject object = new org.json.JSONObject();
      node.properties().forEach(e -> object.put(e.getKey(), toOrgJson(e.getValue())));
      return object;
    }
    if (node.isArray()) {
      org.json.JSONArray array = new org.json.JSONArray();
      node.forEach(e -> array.put(toOrgJson(e)));
      return array;
    }
    if (node.isNull() || node.isMissingNode()) {
      return JSONObject.NULL;
    }
    if (node.isBoolean()) {
      return node.booleanValue();
    }
    if (node.isNumber()) {
      return JSONObject.stringToValue(node.asText());
    }
    return node.asText();
  }

  private static void collect(ValidationException e, List<String> out) {
    if (e.getCausingExceptions().isEmpty()) {
      String pointer = e.getPointerToViolation() == null ? "" : e.getPointerToViolation();
      pointer = pointer.startsWith("#") ? pointer.substring(1) : pointer;
      out.add(pointer + ": " + readable(e.getErrorMessage()));
    } else {
      for (ValidationException cause : e.getCausingExceptions()) {
        collect(cause, out);
      }
    }
  }

  /** {@code "expected type: Number, found: String"} reads as {@code "expected number, found string"}. */
  private static String readable(String message) {
    Matcher m = TYPE_MISMATCH.matcher(message);
    if (m.find()) {
      return m.replaceFirst(
          "expected " + m.group(1).toLowerCase(java.util.Locale.ROOT) + ", found "
              + m.group(2).toLowerCase(java.util.Locale.ROOT));
    }
    return message;
  }

}
