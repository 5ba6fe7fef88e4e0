package dev.rcrt.tools.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every secret value a runner has resolved, and the forms of them it produced itself (an {@code
 * Authorization} header as sent, a Basic credential's Base64): what must never leave the runtime.
 * Kept for the runner's life (the most recent {@value #MAX}), so a value rotated away, or stashed
 * by an earlier call, is still recognised. Scrubbing replaces each with {@link CallScope#REDACTED}
 * in text, in field names, and in numbers whose digits are a secret.
 *
 * <p>Thread-safe.
 */
public final class SecretValues {
  static final int MAX = 1024;

  private final LinkedHashMap<String, Boolean> recent =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
          return size() > MAX;
        }
      };
  /** The values, longest first, so that a value inside a longer one cannot leave part of it. */
  private volatile List<String> longestFirst = List.of();

  /** Remembers {@code value}; empty values are ignored. */
  public void add(String value) {
    if (value.isEmpty()) {
      return;
    }
    synchronized (recent) {
      if (recent.put(value, Boolean.TRUE) == null) {
        List<String> sorted = new ArrayList<>(recent.keySet());
        sorted.sort(Comparator.comparingInt(String::length).reversed());
        longestFirst = List.copyOf(sorted);
      }
    }
  }

  /** Whether nothing is known yet. */
  public boolean isEmpty() {
    return longestFirst.isEmpty();
  }

  /** {@code text} with every known value replaced. */
  public String scrub(String text) {
    String out = text;
    for (String value : longestFirst) {
      if (out.contains(value)) {
        out = out.replace(value, CallScope.REDACTED);
      }
    }
    return out;
  }

  /**
   * The length of the longest ending of {@code clean} (a scrubbed text still being written) that
   * begins a known value, which the text to come could complete: what must be held back. At most
   * the longest value's length less one.
   */
  public int heldBack(String clean) {
    int held = 0;
    for (String value : longestFirst) {
      for (int k = Math.min(value.length() - 1, clean.length()); k > held; k--) {
        if (clean.regionMatches(clean.length() - k, value, 0, k)) {
          held = k;
          break;
        }
      }
    }
    return held;
  }

  /**
   * {@code json} with every known value replaced in strings, field names and numbers; the same node
   * when nothing in it is secret (nothing is copied then).
   */
  public JsonNode scrub(JsonNode json) {
    if (isEmpty()) {
      return json;
    }
    if (json.isTextual()) {
      String clean = scrub(json.textValue());
      return clean.equals(json.textValue()) ? json : TextNode.valueOf(clean);
    }
    if (json.isNumber()) {
      String digits = json.asText();
      return scrub(digits).equals(digits) ? json : TextNode.valueOf(CallScope.REDACTED);
    }
    if (json.isObject()) {
      ObjectNode copy = ((ObjectNode) json).objectNode();
      boolean changed = false;
      for (Map.Entry<String, JsonNode> e : json.properties()) {
        String key = scrub(e.getKey());
        JsonNode value = scrub(e.getValue());
        changed |= value != e.getValue() || !key.equals(e.getKey());
        copy.set(key, value);
      }
      return changed ? copy : json;
    }
    if (json.isArray()) {
      ArrayNode copy = ((ArrayNode) json).arrayNode();
      boolean changed = false;
      for (JsonNode e : json) {
        JsonNode value = scrub(e);
        changed |= value != e;
        copy.add(value);
      }
      return changed ? copy : json;
    }
    return json;
  }
}
