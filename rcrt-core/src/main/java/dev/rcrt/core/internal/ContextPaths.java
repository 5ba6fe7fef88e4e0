package dev.rcrt.core.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.jayway.jsonpath.Configuration;
import com.jayway.jsonpath.InvalidPathException;
import com.jayway.jsonpath.JsonPath;
import com.jayway.jsonpath.Option;
import com.jayway.jsonpath.spi.json.JacksonJsonNodeJsonProvider;
import com.jayway.jsonpath.spi.mapper.JacksonMappingProvider;
import dev.rcrt.core.ValidationException;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Compiled JSONPath (Jayway) over Jackson trees, cached by path text.
 *
 * <p>A definite path ({@code $.a.b}) reads one node or null when missing; an indefinite path
 * ({@code $.items[*].id}) reads an array of every match.
 */
public final class ContextPaths {
  private static final int MAX_CACHED = 4096;
  private static final ConcurrentHashMap<String, JsonPath> CACHE = new ConcurrentHashMap<>();
  /** Plain dotted paths ({@code $.a.b}) by text: read by walking the tree, without a JSONPath engine. */
  private static final ConcurrentHashMap<String, String[]> SIMPLE = new ConcurrentHashMap<>();
  private static final java.util.regex.Pattern DOTTED = java.util.regex.Pattern.compile("^\\$(\\.[A-Za-z_][A-Za-z0-9_]*)+$");
  private static final Configuration CONFIG =
      Configuration.builder()
          .jsonProvider(new JacksonJsonNodeJsonProvider(Mapper.SHARED))
          .mappingProvider(new JacksonMappingProvider(Mapper.SHARED))
          .options(Option.SUPPRESS_EXCEPTIONS)
          .build();

  private ContextPaths() {}

  /**
   * Compiles (or fetches from the cache) a JSONPath; a path without {@code $} is read as {@code
   * $.path}.
   *
   * @throws ValidationException if the path is malformed, naming it
   */
  public static JsonPath compile(String path) {
    JsonPath cached = CACHE.get(path);
    if (cached != null) {
      return cached;
    }
    String full = path.startsWith("$") ? path : "$." + path;
    String problem = problem(full);
    if (problem != null) {
      throw new ValidationException("invalid JSONPath '" + path + "': " + problem);
    }
    JsonPath compiled;
    try {
      compiled = JsonPath.compile(full);
    } catch (InvalidPathException | IllegalArgumentException e) {
      throw new ValidationException("invalid JSONPath '" + path + "': " + e.getMessage());
    }
    if (CACHE.size() >= MAX_CACHED) {
      CACHE.clear();
    }
    CACHE.put(path, compiled);
    return compiled;
  }

  /**
   * What is wrong with a path's shape, in one pass outside quotes, or null:
   *
   * <ul>
   *   <li>an unclosed {@code [} or a stray {@code ]}, which Jayway would read as part of a property
   *       name, so that a selector or hint with such a path would never match;
   *   <li>what makes a path's cost unbounded, refused when a selector or hint is built rather than
   *       evaluated within a budget: more than one deep scan ({@code ..}), whose matches multiply
   *       with each other over a nested record until the heap runs out, and regular-expression
   *       filters ({@code =~}), which can backtrack for minutes on a short string. One deep scan
   *       costs at most one walk of the record, whose size and depth the store bounds.
   * </ul>
   */
  private static @Nullable String problem(String path) {
    int depth = 0;
    int scans = 0;
    char quote = 0;
    for (int i = 0; i < path.length(); i++) {
      char c = path.charAt(i);
      char next = i + 1 < path.length() ? path.charAt(i + 1) : 0;
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == '[') {
        depth++;
      } else if (c == ']' && --depth < 0) {
        return "']' at position " + i + " closes no '['";
      } else if (c == '.' && next == '.') {
        scans++;
        i++;
      } else if (c == '=' && next == '~') {
        return "regular-expression filters (=~) can run for minutes on a short string; use eq, contains or a tag";
      }
    }
    if (quote != 0) {
      return "unclosed quote " + quote;
    }
    if (depth > 0) {
      return "unclosed '['";
    }
    return scans > 1 ? "at most one deep scan (..) is allowed per path; each further one multiplies the matches" : null;
  }

  /** Reads {@code path} from {@code root}; null when a definite path is missing. */
  public static @Nullable JsonNode read(String path, JsonNode root) {
    String[] steps = SIMPLE.get(path);
    if (steps == null) {
      String full = path.startsWith("$") ? path : "$." + path;
      compile(path);
      steps = DOTTED.matcher(full).matches() ? full.substring(2).split("\\.") : new String[0];
      if (SIMPLE.size() >= MAX_CACHED) {
        SIMPLE.clear();
      }
      SIMPLE.put(path, steps);
    }
    if (steps.length > 0) {
      JsonNode node = root;
      for (String step : steps) {
        node = node.get(step);
        if (node == null) {
          return null;
        }
      }
      return node;
    }
    JsonNode result = compile(path).read(root, CONFIG);
    return result == null || result.isMissingNode() ? null : result;
  }

  /** Whether the path can match several nodes (wildcards, filters, deep scan). */
  public static boolean isDefinite(String path) {
    return compile(path).isDefinite();
  }
}
