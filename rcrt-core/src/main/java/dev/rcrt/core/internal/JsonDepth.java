package dev.rcrt.core.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.ValidationException;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A bound on how deeply a context may nest. The check recurses at most {@link #MAX} + 1 levels
 * whatever the input, so it cannot overflow the stack, and it builds the JSON pointer only for the
 * node that passes the limit.
 */
public final class JsonDepth {
  /** The deepest nesting a stored context or hint may have. */
  public static final int MAX = 64;

  private JsonDepth() {}

  /**
   * @throws ValidationException naming {@code what} and the JSON pointer where the limit is passed
   */
  public static void check(JsonNode root, String what) {
    String at = tooDeep(root, 0);
    if (at != null) {
      throw new ValidationException(what + " nests deeper than " + MAX + " levels (at " + at + "); flatten it");
    }
  }

  /** The pointer, relative to {@code node}, of the first container at depth {@link #MAX}; null if none. */
  private static @Nullable String tooDeep(JsonNode node, int depth) {
    if (!node.isContainerNode()) {
      return null;
    }
    if (depth >= MAX) {
      return "";
    }
    if (node.isObject()) {
      for (Map.Entry<String, JsonNode> p : node.properties()) {
        String at = tooDeep(p.getValue(), depth + 1);
        if (at != null) {
          return "/" + p.getKey() + at;
        }
      }
    } else {
      for (int i = 0; i < node.size(); i++) {
        String at = tooDeep(node.get(i), depth + 1);
        if (at != null) {
          return "/" + i + at;
        }
      }
    }
    return null;
  }
}
