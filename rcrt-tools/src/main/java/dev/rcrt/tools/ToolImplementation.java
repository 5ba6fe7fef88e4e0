package dev.rcrt.tools;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * How a tool's code is found: RCRT's {@code implementation} object.
 *
 * <p>Types are {@code builtin} (a {@link ToolHandler} registered with the runner under the tool's
 * name or {@code export}), {@code module}, {@code http}, {@code breadcrumb} (JavaScript or
 * TypeScript kept in a breadcrumb, or inline in a {@code tool.code.v1}) and {@code container}.
 *
 * @param type the implementation type, lowercase
 * @param spec the whole implementation object as written in the breadcrumb (for {@code
 *     tool.code.v1}, its {@code code} object); read by the loader for that type
 */
public record ToolImplementation(String type, JsonNode spec) {
  /** Validates required fields. */
  public ToolImplementation {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(spec, "spec");
  }

  /** The text of {@code spec.<field>}, or {@code fallback} when absent. */
  public String text(String field, String fallback) {
    JsonNode v = spec.get(field);
    return v == null || v.isNull() ? fallback : v.asText();
  }
}
