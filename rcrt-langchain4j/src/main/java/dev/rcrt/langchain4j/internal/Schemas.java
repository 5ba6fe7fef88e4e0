package dev.rcrt.langchain4j.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.RcrtJson;
import dev.langchain4j.model.chat.request.json.JsonArraySchema;
import dev.langchain4j.model.chat.request.json.JsonBooleanSchema;
import dev.langchain4j.model.chat.request.json.JsonEnumSchema;
import dev.langchain4j.model.chat.request.json.JsonIntegerSchema;
import dev.langchain4j.model.chat.request.json.JsonNumberSchema;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonRawSchema;
import dev.langchain4j.model.chat.request.json.JsonSchemaElement;
import dev.langchain4j.model.chat.request.json.JsonStringSchema;
import java.util.ArrayList;
import java.util.List;

/**
 * A tool's JSON Schema as LangChain4j's schema elements: objects, strings (with {@code enum}),
 * integers, numbers, booleans and arrays mapped to their elements with descriptions, required
 * properties and {@code additionalProperties}; anything else (composition, references, several
 * types) kept whole as a {@link JsonRawSchema}, which providers receive as written.
 */
public final class Schemas {
  private Schemas() {}

  /** The parameters of a tool: an object schema ({@code {"type":"object"}} for anything else). */
  public static JsonObjectSchema parameters(JsonNode schema) {
    return object(schema.isObject() ? schema : RcrtJson.object());
  }

  private static JsonObjectSchema object(JsonNode schema) {
    JsonObjectSchema.Builder b = JsonObjectSchema.builder();
    if (schema.path("description").isTextual()) {
      b.description(schema.get("description").asText());
    }
    schema.path("properties").properties().forEach(p -> b.addProperty(p.getKey(), element(p.getValue())));
    List<String> required = new ArrayList<>();
    schema.path("required").forEach(r -> required.add(r.asText()));
    b.required(required);
    if (schema.path("additionalProperties").isBoolean()) {
      b.additionalProperties(schema.get("additionalProperties").asBoolean());
    }
    return b.build();
  }

  private static JsonSchemaElement element(JsonNode schema) {
    String description = schema.path("description").isTextual() ? schema.get("description").asText() : null;
    String type = schema.path("type").isTextual() ? schema.get("type").asText() : "";
    if (schema.has("anyOf") || schema.has("oneOf") || schema.has("allOf") || schema.has("$ref")) {
      type = "";
    }
    switch (type) {
      case "object":
        return object(schema);
      case "string":
        if (schema.path("enum").isArray()) {
          List<String> values = new ArrayList<>();
          schema.get("enum").forEach(v -> values.add(v.asText()));
          return JsonEnumSchema.builder().enumValues(values).description(description).build();
        }
        return JsonStringSchema.builder().description(description).build();
      case "integer":
        return JsonIntegerSchema.builder().description(description).build();
      case "number":
        return JsonNumberSchema.builder().description(description).build();
      case "boolean":
        return JsonBooleanSchema.builder().description(description).build();
      case "array":
        JsonArraySchema.Builder a = JsonArraySchema.builder().description(description);
        if (schema.path("items").isObject()) {
          a.items(element(schema.get("items")));
        }
        return a.build();
      default:
        return JsonRawSchema.from(RcrtJson.write(schema));
    }
  }
}
