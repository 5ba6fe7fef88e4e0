package dev.rcrt.core.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.ValidationException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;

/** A bound on how deeply a context may nest, checked without recursion so it cannot overflow the stack. */
public final class JsonDepth {
  /** The deepest nesting a stored context or hint may have. */
  public static final int MAX = 64;

  private JsonDepth() {}

  /**
   * @throws ValidationException naming {@code what} and the JSON pointer where the limit is passed
   */
  public static void check(JsonNode root, String what) {
    Deque<Map.Entry<String, JsonNode>> stack = new ArrayDeque<>();
    Deque<Integer> depths = new ArrayDeque<>();
    stack.push(Map.entry("", root));
    depths.push(0);
    while (!stack.isEmpty()) {
      Map.Entry<String, JsonNode> e = stack.pop();
      int depth = depths.pop();
      JsonNode node = e.getValue();
      if (!node.isContainerNode()) {
        continue;
      }
      if (depth >= MAX) {
        throw new ValidationException(what + " nests deeper than " + MAX + " levels (at " + e.getKey() + "); flatten it");
      }
      if (node.isObject()) {
        node.properties().forEach(p -> {
          stack.push(Map.entry(e.getKey() + "/" + p.getKey(), p.getValue()));
          depths.push(depth + 1);
        });
      } else {
        for (int i = 0; i < node.size(); i++) {
          stack.push(Map.entry(e.getKey() + "/" + i, node.get(i)));
          depths.push(depth + 1);
        }
      }
    }
  }
}
