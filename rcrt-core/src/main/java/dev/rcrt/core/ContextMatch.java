package dev.rcrt.core;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.rcrt.core.internal.ContextPaths;
import java.util.Objects;

/**
 * One condition on a breadcrumb's context: RCRT's {@code {path, op, value}}.
 *
 * @param path a JSONPath into {@code context}, such as {@code $.session_id} or {@code
 *     $.items[0].name}; a path without the leading {@code $} is read as if it had {@code $.}
 * @param op the operator; see {@link MatchOp} for the semantics of each
 * @param value the operand; JSON null when absent. {@code contains_any} needs an array and {@code
 *     exists} a boolean.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ContextMatch(
    @JsonProperty("path") String path,
    @JsonProperty("op") MatchOp op,
    @JsonProperty("value") JsonNode value) {

  /**
   * Validates the path and the operand when the condition is built, never later.
   *
   * @throws ValidationException if the path is not a JSONPath, or the value does not suit the op
   */
  public ContextMatch {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(op, "op");
    value = value == null ? NullNode.getInstance() : value;
    ContextPaths.compile(path);
    if (op == MatchOp.CONTAINS_ANY && !value.isArray()) {
      throw new ValidationException(
          "context_match '" + path + "' contains_any: value must be an array, found "
              + value.getNodeType());
    }
    if (op == MatchOp.EXISTS && !value.isBoolean()) {
      throw new ValidationException(
          "context_match '" + path + "' exists: value must be true or false, found "
              + value.getNodeType());
    }
  }

  /** {@code path eq value}. */
  public static ContextMatch eq(String path, Object value) {
    return new ContextMatch(path, MatchOp.EQ, json(value));
  }

  /** A condition with any operator; the value is converted to JSON with {@link RcrtJson}. */
  public static ContextMatch of(String path, MatchOp op, Object value) {
    return new ContextMatch(path, op, json(value));
  }

  /** Strings, the common case, skip Jackson's general conversion. */
  private static com.fasterxml.jackson.databind.JsonNode json(Object value) {
    return value instanceof String text
        ? com.fasterxml.jackson.databind.node.TextNode.valueOf(text)
        : RcrtJson.toTree(value);
  }
}
