package dev.rcrt.core.internal.hints;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.HintException;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * RCRT's {@code llm_hints} {@code {include?, exclude?, transform?: {key: rule}, mode?:
 * "replace"|"merge"}}, compiled once and applied to many contexts.
 *
 * <ul>
 *   <li>{@code include} keeps the listed top-level keys;
 *   <li>{@code exclude} removes keys, including nested dotted paths ({@code metadata.internal_id});
 *   <li>{@code transform} computes keys from the full context (see {@link Rules});
 *   <li>{@code mode: replace} (the default) returns only the transformed keys when there are any;
 *       {@code merge} adds them to the filtered context, and the transforms win.
 * </ul>
 *
 * <p>Results share unchanged subtrees with the input: treat them as read-only. Thread-safe.
 */
public final class CompiledHints {
  private final @Nullable List<String> include;
  private final List<String[]> exclude;
  private final Map<String, Rule> transforms;
  private final boolean merge;

  private CompiledHints(@Nullable List<String> include, List<String[]> exclude, Map<String, Rule> transforms, boolean merge) {
    this.include = include;
    this.exclude = exclude;
    this.transforms = transforms;
    this.merge = merge;
  }

  /**
   * Compiles hints.
   *
   * @throws ValidationException for a malformed field or rule, naming it
   */
  public static CompiledHints compile(JsonNode hints) {
    if (!hints.isObject()) {
      throw new ValidationException("llm_hints: expected an object, found " + hints.getNodeType());
    }
    List<String> include = hints.hasNonNull("include") ? strings("include", hints.get("include")) : null;
    List<String[]> exclude = new ArrayList<>();
    if (hints.hasNonNull("exclude")) {
      for (String path : strings("exclude", hints.get("exclude"))) {
        exclude.add(path.split("\\."));
      }
    }
    Map<String, Rule> transforms = new LinkedHashMap<>();
    JsonNode t = hints.path("transform");
    if (!t.isMissingNode() && !t.isNull()) {
      if (!t.isObject()) {
        throw new ValidationException("llm_hints transform: expected an object {key: rule}, found " + t.getNodeType());
      }
      t.properties().forEach(e -> transforms.put(e.getKey(), Rules.compile(e.getKey(), e.getValue())));
    }
    String mode = hints.path("mode").asText("replace").toLowerCase(Locale.ROOT);
    if (!mode.equals("replace") && !mode.equals("merge")) {
      throw new ValidationException("llm_hints mode: unknown value '" + mode + "'; use replace or merge");
    }
    return new CompiledHints(include, exclude, transforms, mode.equals("merge"));
  }

  /**
   * The view of {@code context}.
   *
   * @param where names the breadcrumb in errors
   * @throws HintException if a transform fails on this context
   */
  public JsonNode apply(JsonNode context, String where) {
    JsonNode filtered = context;
    if (include != null) {
      ObjectNode kept = RcrtJson.object();
      for (String key : include) {
        if (context.has(key)) {
          kept.set(key, context.get(key));
        }
      }
      filtered = kept;
    }
    for (String[] path : exclude) {
      filtered = without(filtered, path, 0);
    }
    if (transforms.isEmpty()) {
      return filtered;
    }
    ObjectNode out = merge && filtered.isObject() ? ((ObjectNode) filtered).deepCopy() : RcrtJson.object();
    for (Map.Entry<String, Rule> t : transforms.entrySet()) {
      try {
        out.set(t.getKey(), t.getValue().apply(context));
      } catch (StackOverflowError e) {
        // a self-recursive jq function or Handlebars partial: the stack bounds it, and the view says so
        throw new HintException(where + " llm_hints transform '" + t.getKey() + "' recursed without end and was stopped", null);
      } catch (Exception e) {
        throw new HintException(where + " llm_hints transform '" + t.getKey() + "' failed: " + e.getMessage(), e);
      }
    }
    return out;
  }

  /** A copy of {@code node} without the dotted path; only the objects along the path are copied. */
  private static JsonNode without(JsonNode node, String[] path, int at) {
    if (!node.isObject() || !node.has(path[at])) {
      return node;
    }
    ObjectNode copy = RcrtJson.object();
    copy.setAll((ObjectNode) node);
    if (at == path.length - 1) {
      copy.remove(path[at]);
    } else {
      copy.set(path[at], without(node.get(path[at]), path, at + 1));
    }
    return copy;
  }

  private static List<String> strings(String field, JsonNode node) {
    if (!node.isArray()) {
      throw new ValidationException("llm_hints " + field + ": expected an array of keys, found " + node.getNodeType());
    }
    List<String> out = new ArrayList<>();
    for (JsonNode n : node) {
      if (!n.isTextual()) {
        throw new ValidationException("llm_hints " + field + ": every entry must be a string, found " + n.getNodeType());
      }
      out.add(n.textValue());
    }
    return out;
  }
}
