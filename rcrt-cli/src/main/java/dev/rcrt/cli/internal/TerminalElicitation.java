package dev.rcrt.cli.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.RcrtJson;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A server's elicitation (MCP {@code elicitation/create}, form mode) asked of the person at the
 * command line: the message and each field of the requested schema on standard error, the answers
 * read from standard input, one line each.
 *
 * <p>First {@code accept}, {@code decline} or {@code cancel} (a, d, c; an empty line accepts); then
 * one line per field: a string, an integer, a number, {@code yes}/{@code no} for a boolean, one of
 * the listed values for an enum (its {@code const} or its title), several separated by commas for
 * a multi-select. An empty line keeps the field's default (the client fills it in) or leaves an
 * optional field out; a value that does not fit is asked again, at most three times, and then the
 * elicitation is cancelled. The end of input cancels. Not thread-safe: one question at a time.
 */
final class TerminalElicitation {
  private static final int TRIES = 3;

  private final BufferedReader in;
  private final PrintStream err;
  private final String asker;

  /** @param asker who asks, as the person is told ({@code The server}, {@code Tool 'book-trip'}) */
  TerminalElicitation(BufferedReader in, PrintStream err, String asker) {
    this.in = in;
    this.err = err;
    this.asker = asker;
  }

  McpSchema.ElicitResult ask(McpSchema.ElicitFormRequest request) {
    err.println(asker + " asks: " + request.message());
    String choice = line("Answer: (a)ccept, (d)ecline or (c)ancel? [a] ");
    if (choice == null || choice.toLowerCase(Locale.ROOT).startsWith("c")) {
      return new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.CANCEL, null);
    }
    if (choice.toLowerCase(Locale.ROOT).startsWith("d")) {
      return new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.DECLINE, null);
    }
    JsonNode schema = RcrtJson.toTree(request.requestedSchema() == null ? Map.of() : request.requestedSchema());
    List<String> required = new ArrayList<>();
    schema.path("required").forEach(r -> required.add(r.asText()));
    Map<String, Object> content = new LinkedHashMap<>();
    for (var field : (Iterable<Map.Entry<String, JsonNode>>) schema.path("properties")::fields) {
      Object value = field(field.getKey(), field.getValue(), required.contains(field.getKey()));
      if (value == Cancelled.INSTANCE) {
        return new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.CANCEL, null);
      }
      if (value != null) {
        content.put(field.getKey(), value);
      }
    }
    return new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.ACCEPT, content);
  }

  /** What {@link #field} answers when the person gave up or input ended. */
  private enum Cancelled { INSTANCE }

  /** One field's value, null to leave it out (its default applies), or {@link Cancelled#INSTANCE}. */
  private @Nullable Object field(String name, JsonNode property, boolean required) {
    List<Choice> choices = choices(property.path("type").asText().equals("array") ? property.path("items") : property);
    String prompt = "  " + property.path("title").asText(name) + describe(property, choices, required) + ": ";
    for (int attempt = 0; attempt < TRIES; attempt++) {
      String answer = line(prompt);
      if (answer == null) {
        return Cancelled.INSTANCE;
      }
      if (answer.isBlank()) {
        if (!required || property.has("default")) {
          return null;
        }
        err.println("  (required)");
        continue;
      }
      try {
        return value(property, answer.trim(), choices);
      } catch (IllegalArgumentException wrong) {
        err.println("  " + wrong.getMessage());
      }
    }
    return Cancelled.INSTANCE;
  }

  private static String describe(JsonNode property, List<Choice> choices, boolean required) {
    StringBuilder d = new StringBuilder(" (").append(property.path("type").asText("string"));
    if (!choices.isEmpty()) {
      d.append(", one").append(property.path("type").asText().equals("array") ? " or more" : "").append(" of ").append(shown(choices));
    }
    d.append(required ? ", required" : "").append(')');
    if (property.has("default")) {
      d.append(" [").append(property.get("default").isTextual() ? property.get("default").asText() : RcrtJson.write(property.get("default"))).append(']');
    }
    if (property.path("description").isTextual()) {
      d.append(" ").append(property.get("description").asText());
    }
    return d.toString();
  }

  /** One value an enum allows, and its title ({@code oneOf}/{@code anyOf}), or null for a plain {@code enum} value. */
  private record Choice(String value, @Nullable String title) {
    /** How the person sees it: {@code value}, or {@code value (Title)}. */
    String shown() {
      return title == null ? value : value + " (" + title + ")";
    }

    /** Whether {@code answer} names it: its value, or its title (a plain value also in any case). */
    boolean named(String answer) {
      return value.equals(answer) || (title != null ? title : value).equalsIgnoreCase(answer);
    }
  }

  /** The values a (single-select) schema allows: {@code enum}, or the {@code const}s of {@code oneOf}/{@code anyOf}. */
  private static List<Choice> choices(JsonNode schema) {
    List<Choice> out = new ArrayList<>();
    schema.path("enum").forEach(v -> out.add(new Choice(v.asText(), null)));
    for (String key : List.of("oneOf", "anyOf")) {
      schema.path(key).forEach(o -> out.add(new Choice(o.path("const").asText(), o.has("title") ? o.get("title").asText() : null)));
    }
    return out;
  }

  private static String shown(List<Choice> choices) {
    return String.join(" | ", choices.stream().map(Choice::shown).toList());
  }

  private static Object value(JsonNode property, String answer, List<Choice> choices) {
    return switch (property.path("type").asText("string")) {
      case "integer" -> parse(() -> Long.parseLong(answer), "a whole number");
      case "number" -> parse(() -> Double.parseDouble(answer), "a number");
      case "boolean" -> switch (answer.toLowerCase(Locale.ROOT)) {
        case "y", "yes", "true" -> true;
        case "n", "no", "false" -> false;
        default -> throw new IllegalArgumentException("answer yes or no");
      };
      case "array" -> {
        List<String> picked = new ArrayList<>();
        for (String part : answer.split(",")) {
          picked.add(choice(part.trim(), choices));
        }
        yield picked;
      }
      default -> choices.isEmpty() ? answer : choice(answer, choices);
    };
  }

  /** The value {@code answer} names among {@code choices}, by value or by title. */
  private static String choice(String answer, List<Choice> choices) {
    for (Choice c : choices) {
      if (c.named(answer)) {
        return c.value();
      }
    }
    throw new IllegalArgumentException("'" + answer + "' is not one of " + shown(choices));
  }

  private static Object parse(java.util.function.Supplier<Object> number, String what) {
    try {
      return number.get();
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("give " + what);
    }
  }

  private @Nullable String line(String prompt) {
    err.print(prompt);
    err.flush();
    try {
      return in.readLine();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
