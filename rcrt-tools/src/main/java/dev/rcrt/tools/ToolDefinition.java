package dev.rcrt.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.JsonSchema;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One tool, normalised from whichever of RCRT's three tool schemas its breadcrumb uses:
 *
 * <ul>
 *   <li>{@code tool.code.v1}: {@code {name, description, code{language, source}, input_schema,
 *       output_schema, examples, permissions, limits, required_secrets}}; its implementation is
 *       type {@code breadcrumb} with the inline {@code code} object as spec;
 *   <li>{@code tool.v1}: {@code {name, version, implementation{type, …}, definition{inputSchema,
 *       outputSchema}}};
 *   <li>{@code tool.definition.v1}: {@code {name, description, category, inputSchema,
 *       outputSchema, examples}}; without an {@code implementation} it is a {@code builtin}.
 * </ul>
 *
 * <p>camelCase and snake_case keys are both accepted ({@code inputSchema} / {@code input_schema}).
 * A tool without an input schema takes any object ({@code {"type":"object"}}).
 *
 * @param name the tool's name as agents call it (any text; the prompt adapter maps it to a safe
 *     function name)
 * @param description what it does; the breadcrumb's description or title when the context has none
 * @param category a grouping such as {@code "math"}, or null
 * @param version the tool's version label, or null
 * @param inputSchema JSON Schema of the input
 * @param outputSchema JSON Schema of the output, or null when unspecified
 * @param examples worked examples; copied
 * @param implementation how the code is found
 * @param timeout the run time limit from {@code capabilities.timeout} or {@code limits.timeout_ms}
 *     (milliseconds in the record), or null for the runner's default
 * @param sourceId id of the breadcrumb this came from
 * @param sourceVersion version of that breadcrumb; a new version is a new tool to the loader
 * @param schemaName schema of that breadcrumb
 * @param context that breadcrumb's whole context, for loaders that need more fields
 */
public record ToolDefinition(
    String name,
    String description,
    @Nullable String category,
    @Nullable String version,
    JsonNode inputSchema,
    @Nullable JsonNode outputSchema,
    List<ToolExample> examples,
    ToolImplementation implementation,
    @Nullable Duration timeout,
    String sourceId,
    long sourceVersion,
    String schemaName,
    JsonNode context) {

  /** The schemas tool breadcrumbs use, in discovery priority order. */
  public static final List<String> TOOL_SCHEMAS = List.of("tool.code.v1", "tool.v1", "tool.definition.v1");

  /** The default of {@link #maxResponseBytes()}: 10 MiB. */
  public static final long DEFAULT_MAX_RESPONSE_BYTES = 10L * 1024 * 1024;

  /** Validates required fields and copies the examples. */
  public ToolDefinition {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(description, "description");
    Objects.requireNonNull(inputSchema, "inputSchema");
    examples = List.copyOf(examples);
    Objects.requireNonNull(implementation, "implementation");
    Objects.requireNonNull(sourceId, "sourceId");
    Objects.requireNonNull(schemaName, "schemaName");
    Objects.requireNonNull(context, "context");
  }

  /**
   * The most bytes of one response body the tool may read (an HTTP tool's answer, a JavaScript
   * {@code fetch}): {@code limits.max_response_bytes} when it is a positive number, else {@link
   * #DEFAULT_MAX_RESPONSE_BYTES}.
   */
  public long maxResponseBytes() {
    JsonNode max = context.path("limits").path("max_response_bytes");
    return max.canConvertToLong() && max.asLong() > 0 ? max.asLong() : DEFAULT_MAX_RESPONSE_BYTES;
  }

  /**
   * What is wrong with this tool beyond its shape: input or output schemas that are not valid JSON
   * Schemas, and examples that break them.
   *
   * @return one line per problem, such as {@code "tool 'x' example 2 input /n: expected number,
   *     found string"}; empty when the tool is sound
   */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    JsonSchema in = compileOrNote(inputSchema, "input_schema", problems);
    JsonSchema out = outputSchema == null ? null : compileOrNote(outputSchema, "output_schema", problems);
    if (in != null) {
      problems.addAll(exampleProblems(in, out));
    }
    return problems;
  }

  /**
   * The problems among {@link #problems()} that are only the tool's examples breaking its schemas:
   * the tool still runs, but its examples teach the model wrong. Empty when a schema does not
   * compile (that is a problem of its own).
   */
  public List<String> exampleProblems() {
    List<String> ignored = new ArrayList<>();
    JsonSchema in = compileOrNote(inputSchema, "input_schema", ignored);
    JsonSchema out = outputSchema == null ? null : compileOrNote(outputSchema, "output_schema", ignored);
    return in == null || !ignored.isEmpty() ? List.of() : exampleProblems(in, out);
  }

  /** Each way the tool's own examples break its schemas. Examples teach the model; a wrong one teaches it wrong. */
  private List<String> exampleProblems(
      JsonSchema in, @Nullable JsonSchema out) {
    List<String> found = new ArrayList<>();
    for (int i = 0; i < examples.size(); i++) {
      ToolExample example = examples.get(i);
      String where = "tool '" + name + "' example " + (i + 1);
      if (example.input() != null) {
        in.violations(example.input()).forEach(v -> found.add(where + " input " + v));
      }
      if (out != null && example.output() != null) {
        out.violations(example.output()).forEach(v -> found.add(where + " output " + v));
      }
    }
    return found;
  }

  private @Nullable JsonSchema compileOrNote(JsonNode schema, String field, List<String> problems) {
    try {
      return JsonSchema.compile(schema);
    } catch (ValidationException e) {
      problems.add("tool '" + name + "' " + field + ": " + e.getMessage());
      return null;
    }
  }

  /** Whether breadcrumbs of {@code schemaName} define tools. */
  public static boolean isToolSchema(@Nullable String schemaName) {
    return schemaName != null && TOOL_SCHEMAS.contains(schemaName);
  }

  /**
   * Reads a tool from its breadcrumb.
   *
   * @throws ValidationException if the schema is not a tool schema, the name is missing, or a
   *     schema or the implementation is not an object; the message names the breadcrumb and field
   */
  public static ToolDefinition fromBreadcrumb(Breadcrumb breadcrumb) {
    String schema = breadcrumb.schemaName();
    String where = "tool breadcrumb '" + breadcrumb.id() + "'";
    if (schema == null || !isToolSchema(schema)) {
      throw new ValidationException(
          where + ": schema_name '" + schema + "' is not one of " + TOOL_SCHEMAS);
    }
    JsonNode c = breadcrumb.context();
    String name = text(c, "name");
    if (name == null || name.isBlank()) {
      throw new ValidationException(where + " (" + schema + ") context/name: required, found none");
    }
    where = "tool '" + name + "' (breadcrumb '" + breadcrumb.id() + "')";
    JsonNode definition = c.path("definition");
    JsonNode input = firstObject(where, c, definition, "input_schema", "inputSchema");
    JsonNode output = firstObject(where, c, definition, "output_schema", "outputSchema");

    String description = text(c, "description");
    if (description == null) {
      description = breadcrumb.description() != null ? breadcrumb.description() : breadcrumb.title();
    }
    return new ToolDefinition(
        name,
        description,
        text(c, "category"),
        text(c, "version") != null ? text(c, "version") : breadcrumb.semanticVersion(),
        input != null ? input : defaultInputSchema(),
        output,
        examples(where, c.get("examples")),
        implementation(where, schema, c),
        timeout(c),
        breadcrumb.id(),
        breadcrumb.version(),
        schema,
        c);
  }

  private static ToolImplementation implementation(String where, String schema, JsonNode c) {
    if ("tool.code.v1".equals(schema)) {
      JsonNode code = c.get("code");
      if (code == null || !code.isObject()) {
        throw new ValidationException(where + " context/code: expected object {language, source}");
      }
      return new ToolImplementation("breadcrumb", code);
    }
    JsonNode impl = c.get("implementation");
    if (impl == null || impl.isNull()) {
      if ("tool.v1".equals(schema)) {
        throw new ValidationException(where + " context/implementation: required for tool.v1");
      }
      ObjectNode builtin = RcrtJson.object().put("type", "builtin");
      return new ToolImplementation("builtin", builtin);
    }
    String type = impl.isObject() ? text(impl, "type") : null;
    if (type == null) {
      throw new ValidationException(where + " context/implementation: expected object with a type");
    }
    return new ToolImplementation(type.toLowerCase(java.util.Locale.ROOT), impl);
  }

  private static List<ToolExample> examples(String where, @Nullable JsonNode node) {
    if (node == null || node.isNull()) {
      return List.of();
    }
    if (!node.isArray()) {
      throw new ValidationException(where + " context/examples: expected array, found " + node.getNodeType());
    }
    List<ToolExample> list = new ArrayList<>();
    for (JsonNode each : node) {
      if (each.isObject()) {
        list.add(ToolExample.fromJson(each));
      }
    }
    return list;
  }

  private static @Nullable Duration timeout(JsonNode c) {
    JsonNode ms = c.path("capabilities").get("timeout");
    if (ms == null || !ms.isNumber()) {
      ms = c.path("limits").get("timeout_ms");
    }
    return ms != null && ms.isNumber() && ms.asLong() > 0 ? Duration.ofMillis(ms.asLong()) : null;
  }

  private static @Nullable JsonNode firstObject(
      String where, JsonNode c, JsonNode definition, String snake, String camel) {
    for (JsonNode holder : List.of(c, definition)) {
      for (String key : List.of(snake, camel)) {
        JsonNode v = holder.get(key);
        if (v != null && !v.isNull()) {
          if (!v.isObject()) {
            throw new ValidationException(
                where + " context/" + key + ": expected a JSON Schema object, found " + v.getNodeType());
          }
          return v;
        }
      }
    }
    return null;
  }

  private static @Nullable String text(JsonNode node, String field) {
    JsonNode v = node.get(field);
    return v == null || v.isNull() || v.isContainerNode() ? null : v.asText();
  }

  private static JsonNode defaultInputSchema() {
    return RcrtJson.object().put("type", "object");
  }
}
