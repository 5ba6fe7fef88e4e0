package dev.rcrt.tools;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import org.jspecify.annotations.Nullable;

/**
 * One worked example of a tool, as kept in its breadcrumb's {@code examples} array.
 *
 * @param description what the example shows, or null
 * @param input the tool input, or null
 * @param output the tool output, or null
 * @param explanation how to read the output (RCRT's {@code explanation}, or the older {@code
 *     usage}), or null
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ToolExample(
    @JsonProperty("description") @Nullable String description,
    @JsonProperty("input") @Nullable JsonNode input,
    @JsonProperty("output") @Nullable JsonNode output,
    @JsonProperty("explanation") @Nullable String explanation) {

  static ToolExample fromJson(JsonNode node) {
    String explanation = text(node, "explanation");
    return new ToolExample(
        text(node, "description"),
        node.get("input"),
        node.get("output"),
        explanation != null ? explanation : text(node, "usage"));
  }

  private static @Nullable String text(JsonNode node, String field) {
    JsonNode v = node.get(field);
    return v == null || !v.isTextual() ? null : v.textValue();
  }
}
