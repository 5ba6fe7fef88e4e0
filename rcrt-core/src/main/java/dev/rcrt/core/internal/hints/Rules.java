package dev.rcrt.core.internal.hints;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.github.jknack.handlebars.EscapingStrategy;
import com.github.jknack.handlebars.Handlebars;
import com.github.jknack.handlebars.Template;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import dev.rcrt.core.internal.ContextPaths;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.thisptr.jackson.jq.BuiltinFunctionLoader;
import net.thisptr.jackson.jq.Function;
import net.thisptr.jackson.jq.JsonQuery;
import net.thisptr.jackson.jq.Scope;
import net.thisptr.jackson.jq.Versions;
import net.thisptr.jackson.jq.exception.JsonQueryException;

/**
 * The five {@code transform} rule types of RCRT's {@code llm_hints}: {@code {type: "template",
 * template}} (Handlebars over {@code {context}}), {@code {type: "extract", path}} (JSONPath: no match
 * → null, one → the value, several → an array), {@code {type: "format", format}} ({@code {a.b}}
 * placeholders: missing → empty, containers → compact JSON), {@code {type: "literal", value}} and
 * {@code {type: "jq", query}} (jackson-jq; results as for extract). Each rule's text may also be
 * given as {@code value}.
 */
final class Rules {
  /** The most characters a template may render. */
  static final int MAX_TEXT = 1 << 20;
  /** The most values a jq program may produce. */
  static final int MAX_VALUES = 10_000;
  /** The most values the generators inside one jq evaluation ({@code range}, {@code recurse}, …) may produce. */
  static final int MAX_GENERATED = 1_000_000;
  /** The longest one jq evaluation may run, checked every 1,024 values the generators produce. */
  static final java.time.Duration JQ_TIME = java.time.Duration.ofSeconds(1);
  private static final Scope JQ_ROOT = jqRoot();
  /** jq's built-in generators that a program could drive without end; each is counted and timed ({@link Budget}). */
  private static final List<Generator> GENERATORS =
      Generator.of(JQ_ROOT, "range/1", "range/2", "range/3", "recurse/0", "recurse/1", "recurse/2", "while/2", "until/2", "limit/2",
          "combinations/0", "combinations/1", "splits/1", "splits/2", "paths/0", "paths/1");
  private static final Handlebars HANDLEBARS = new Handlebars().with(EscapingStrategy.NOOP);
  private static final Pattern PLACEHOLDER = Pattern.compile("\\{([A-Za-z0-9_$.\\[\\]-]+)}");

  private Rules() {}

  /**
   * Compiles one rule.
   *
   * @throws ValidationException naming the key and what is wrong
   */
  static Rule compile(String key, JsonNode spec) {
    String where = "llm_hints transform '" + key + "'";
    if (!spec.isObject()) {
      throw new ValidationException(where + ": expected an object {type, …}, found " + spec.getNodeType());
    }
    String type = spec.path("type").asText("").toLowerCase(Locale.ROOT);
    return switch (type) {
      case "template" -> template(where, text(where, spec, "template"));
      case "extract" -> extract(where, text(where, spec, "path"));
      case "format" -> format(text(where, spec, "format"));
      case "literal" -> literal(spec.has("literal") ? spec.get("literal") : spec.path("value"));
      case "jq" -> jq(where, text(where, spec, "query"));
      default -> throw new ValidationException(
          where + ": unknown type '" + type + "'; use template, extract, format, literal or jq");
    };
  }

  private static Rule template(String where, String source) {
    Template template;
    try {
      template = HANDLEBARS.compileInline(source);
    } catch (IOException | RuntimeException e) {
      throw new ValidationException(where + ": template does not compile: " + e.getMessage());
    }
    return context -> {
      BoundedWriter out = new BoundedWriter(MAX_TEXT);
      template.apply(Map.of("context", RcrtJson.convert(context, Object.class)), out);
      return TextNode.valueOf(out.toString());
    };
  }

  private static Rule extract(String where, String path) {
    ContextPaths.compile(path);
    boolean definite = ContextPaths.isDefinite(path);
    return context -> {
      JsonNode found = ContextPaths.read(path, context);
      if (found == null) {
        return NullNode.getInstance();
      }
      return definite ? found : collapse(found);
    };
  }

  private static Rule format(String pattern) {
    return context -> {
      Matcher m = PLACEHOLDER.matcher(pattern);
      StringBuilder out = new StringBuilder();
      while (m.find()) {
        String path = m.group(1).startsWith("context.") ? m.group(1).substring("context.".length()) : m.group(1);
        JsonNode value = ContextPaths.read(path, context);
        String text = value == null || value.isNull() ? "" : value.isValueNode() ? value.asText() : RcrtJson.write(value);
        m.appendReplacement(out, Matcher.quoteReplacement(text));
      }
      m.appendTail(out);
      return TextNode.valueOf(out.toString());
    };
  }

  private static Rule literal(JsonNode value) {
    JsonNode copy = value.deepCopy();
    return context -> copy;
  }

  private static Rule jq(String where, String query) {
    JsonQuery compiled;
    try {
      compiled = JsonQuery.compile(query, Versions.JQ_1_6);
    } catch (JsonQueryException e) {
      throw new ValidationException(where + ": jq program does not compile: " + e.getMessage());
    }
    return context -> {
      List<JsonNode> out = new ArrayList<>();
      compiled.apply(new Budget().scope(), context, value -> {
        if (out.size() >= MAX_VALUES) {
          throw new IllegalStateException("the jq program produced more than " + MAX_VALUES + " values");
        }
        out.add(value);
      });
      ArrayNode all = RcrtJson.array().addAll(out);
      return collapse(all);
    };
  }

  /** A built-in jq function that produces values, looked up once. */
  private record Generator(String name, int arity, Function builtin) {
    /** Those of {@code names} ({@code name/arity}) that {@code root} defines. */
    static List<Generator> of(Scope root, String... names) {
      List<Generator> found = new ArrayList<>();
      for (String n : names) {
        String name = n.substring(0, n.indexOf('/'));
        int arity = Integer.parseInt(n.substring(n.indexOf('/') + 1));
        Function builtin = root.getFunction(name, arity);
        if (builtin != null) {
          found.add(new Generator(name, arity, builtin));
        }
      }
      return List.copyOf(found);
    }
  }

  /**
   * One jq evaluation's budget. jackson-jq cannot be interrupted, so the budget is checked where a
   * program could run without end: every value the generators above produce counts, and past {@link
   * #MAX_GENERATED} values or {@link #JQ_TIME} the evaluation fails. Recursion without end ({@code
   * def f: f; f}) is bounded by the stack instead (see {@code CompiledHints}). What stays bounded only
   * by memory: single operations that build one huge value ({@code "x" * 1e9}).
   */
  private static final class Budget {
    private final long deadline = System.nanoTime() + JQ_TIME.toNanos();
    private long generated;

    /** A scope whose generators are those of jq, counted against this budget. */
    Scope scope() {
      Scope scope = Scope.newChildScope(JQ_ROOT);
      for (Generator g : GENERATORS) {
        scope.addFunction(g.name(), g.arity(), (sc, args, in, path, output, version) ->
            g.builtin().apply(sc, args, in, path, (value, at) -> {
              spend(g.name());
              output.emit(value, at);
            }, version));
      }
      return scope;
    }

    private void spend(String generator) throws JsonQueryException {
      if (++generated > MAX_GENERATED) {
        throw new JsonQueryException("the jq program generated more than " + MAX_GENERATED + " values (in " + generator + ")");
      }
      if ((generated & 1023) == 0 && System.nanoTime() > deadline) {
        throw new JsonQueryException("the jq program ran longer than " + JQ_TIME.toMillis() + " ms (in " + generator + ")");
      }
    }
  }

  /** A writer that refuses to grow past its limit, so a template cannot render without end. */
  private static final class BoundedWriter extends java.io.Writer {
    private final StringBuilder text = new StringBuilder();
    private final int max;

    BoundedWriter(int max) {
      this.max = max;
    }

    @Override
    public void write(char[] chars, int off, int len) throws IOException {
      if (text.length() + len > max) {
        throw new IOException("the template rendered more than " + max + " characters");
      }
      text.append(chars, off, len);
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}

    @Override
    public String toString() {
      return text.toString();
    }
  }

  /** No value → null, one → the value, several → the array. */
  private static JsonNode collapse(JsonNode array) {
    return array.isEmpty() ? NullNode.getInstance() : array.size() == 1 ? array.get(0) : array;
  }

  private static String text(String where, JsonNode spec, String field) {
    JsonNode v = spec.has(field) ? spec.get(field) : spec.get("value");
    if (v == null || !v.isTextual()) {
      throw new ValidationException(where + ": '" + field + "' must be a string");
    }
    return v.textValue();
  }

  private static Scope jqRoot() {
    Scope root = Scope.newEmptyScope();
    BuiltinFunctionLoader.getInstance().loadFunctions(Versions.JQ_1_6, root);
    return root;
  }

}
