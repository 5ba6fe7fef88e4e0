package dev.rcrt.agent.internal.prompt;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolExample;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The concise text form of one tool, as in the design's direct-discovery context:
 *
 * <pre>
 * Tool: calculator
 * Evaluate an arithmetic expression
 * Input: expression (string, required): For example (2 + 3) * 4
 * Output: result (number), expression (string), formatted (string)
 * Example: {"expression":"17 * 23"} → {"result":391,…}. Read result.result
 * </pre>
 *
 * Parameter types, required marks and output fields are always kept; only one example is shown.
 */
public final class ToolText {
  private ToolText() {}

  public static String of(ToolDefinition tool, String functionName) {
    return of(tool, functionName, true);
  }

  /** The text, with or without the {@code Input} line (native function calls carry the inputs). */
  public static String of(ToolDefinition tool, String functionName, boolean withInputs) {
    return of(functionName, tool.description(), withInputs ? tool.inputSchema() : null, tool.outputSchema(),
        tool.examples().isEmpty() ? null : tool.examples().get(0));
  }

  /**
   * The same text from a tool record's hints-applied view ({@code name, description,
   * input_schema|inputSchema, output_schema|outputSchema, examples}): what the hints leave out is
   * not shown.
   */
  public static String ofView(JsonNode view) {
    JsonNode in = view.has("input_schema") ? view.get("input_schema") : view.path("inputSchema");
    JsonNode out = view.has("output_schema") ? view.get("output_schema") : view.get("outputSchema");
    JsonNode first = view.path("examples").path(0);
    ToolExample example =
        first.isObject()
            ? new ToolExample(null, first.get("input"), first.get("output"),
                first.hasNonNull("explanation") ? first.get("explanation").asText() : first.hasNonNull("usage") ? first.get("usage").asText() : null)
            : null;
    return of(view.path("name").asText(), view.path("description").asText(""), in.isObject() ? in : RcrtJson.object(), out != null && out.isObject() ? out : null, example);
  }

  private static String of(
      String functionName, String description, @org.jspecify.annotations.Nullable JsonNode inputSchema,
      @org.jspecify.annotations.Nullable JsonNode outputSchema,
      @org.jspecify.annotations.Nullable ToolExample e) {
    StringBuilder out = new StringBuilder();
    out.append("Tool: ").append(functionName).append('\n');
    out.append(description.strip()).append('\n');
    if (inputSchema != null) {
      out.append("Input: ").append(fields(inputSchema, true)).append('\n');
    }
    if (outputSchema != null) {
      out.append("Output: ").append(fields(outputSchema, false)).append('\n');
    }
    if (e != null) {
      out.append("Example: ");
      if (e.input() != null) {
        out.append(RcrtJson.write(e.input()));
      }
      if (e.output() != null) {
        out.append(" → ").append(RcrtJson.write(e.output()));
      }
      if (e.explanation() != null) {
        out.append(". ").append(e.explanation().strip());
      }
      out.append('\n');
    }
    return out.toString();
  }

  /** {@code name (type, required, default 0): description} for each property; "none" if none. */
  static String fields(JsonNode schema, boolean withDetails) {
    JsonNode properties = schema.path("properties");
    if (!properties.isObject() || properties.isEmpty()) {
      return schema.path("type").asText("object").equals("object") ? "none" : type(schema);
    }
    Set<String> required = new HashSet<>();
    schema.path("required").forEach(r -> required.add(r.asText()));
    List<String> parts = new ArrayList<>();
    for (Map.Entry<String, JsonNode> p : properties.properties()) {
      JsonNode prop = p.getValue();
      StringBuilder s = new StringBuilder(p.getKey()).append(" (").append(type(prop));
      if (withDetails) {
        if (required.contains(p.getKey())) {
          s.append(", required");
        }
        if (prop.has("default")) {
          s.append(", default ").append(RcrtJson.write(prop.get("default")));
        }
      }
      s.append(')');
      if (withDetails && prop.hasNonNull("description")) {
        s.append(": ").append(prop.get("description").asText().strip());
      }
      parts.add(s.toString());
    }
    return String.join(withDetails ? "; " : ", ", parts);
  }

  private static String type(JsonNode prop) {
    if (prop.has("enum")) {
      List<String> values = new ArrayList<>();
      prop.get("enum").forEach(v -> values.add(v.asText()));
      return "one of " + String.join("|", values);
    }
    JsonNode type = prop.get("type");
    String t = type == null ? "any" : type.isArray() ? joined(type) : type.asText();
    if ("array".equals(t) && prop.path("items").has("type")) {
      return "array of " + prop.path("items").get("type").asText();
    }
    return t;
  }

  private static String joined(JsonNode types) {
    List<String> all = new ArrayList<>();
    types.forEach(t -> all.add(t.asText()));
    return String.join("|", all);
  }
}
