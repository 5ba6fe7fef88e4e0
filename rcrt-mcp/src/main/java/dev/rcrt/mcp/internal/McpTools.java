package dev.rcrt.mcp.internal;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolDefinition;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.Map;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A tool record as an MCP tool: name, title, description, {@code inputSchema} (always an object
 * schema, as MCP requires), {@code outputSchema} when the record's is an object schema, and the
 * record's {@code annotations} ({@code readOnlyHint}, {@code destructiveHint}, {@code
 * idempotentHint}, {@code openWorldHint}).
 */
public final class McpTools {
  /** MCP's tool names: 1 to 128 letters, digits, {@code _}, {@code -} or {@code .}. */
  static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,128}");
  private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};

  private McpTools() {}

  /** Whether MCP clients can call a tool of this name. */
  public static boolean nameAllowed(String name) {
    return NAME.matcher(name).matches();
  }

  /**
   * The MCP form of {@code tool}.
   *
   * @param title the record's title, or null
   */
  public static McpSchema.Tool of(ToolDefinition tool, @Nullable String title) {
    McpSchema.Tool.Builder b = McpSchema.Tool.builder().name(tool.name()).description(tool.description()).inputSchema(map(objectSchema(tool.inputSchema())));
    if (title != null && !title.isBlank()) {
      b.title(title);
    }
    JsonNode output = tool.outputSchema();
    if (output != null && "object".equals(output.path("type").asText())) {
      b.outputSchema(map(output));
    }
    JsonNode a = tool.context().path("annotations");
    if (a.isObject()) {
      b.annotations(new McpSchema.ToolAnnotations(
          a.path("title").isTextual() ? a.get("title").asText() : null, bool(a, "readOnlyHint"), bool(a, "destructiveHint"),
          bool(a, "idempotentHint"), bool(a, "openWorldHint"), null));
    }
    return b.build();
  }

  /** An input schema as MCP wants it: an object schema, {@code type: "object"} added where missing. */
  private static JsonNode objectSchema(JsonNode schema) {
    if (schema.isObject() && !schema.has("type")) {
      ObjectNode copy = ((ObjectNode) schema).deepCopy();
      copy.put("type", "object");
      return copy;
    }
    return schema;
  }

  private static Map<String, Object> map(JsonNode json) {
    return RcrtJson.convert(json, MAP);
  }

  private static @Nullable Boolean bool(JsonNode annotations, String field) {
    JsonNode v = annotations.get(field);
    return v != null && v.isBoolean() ? v.asBoolean() : null;
  }
}
