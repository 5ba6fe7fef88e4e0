package dev.rcrt.cli.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.RcrtJson;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;

/**
 * Signatures written into a breadcrumb file's own text: each signed record's {@code
 * context.signature} is inserted before the context's closing brace (or an older one's value
 * replaced), one line at the indentation of the context's other fields, and nothing else of the file
 * changes (order, spacing, line breaks). The records are found with Jackson's streaming parser and
 * its character offsets.
 */
final class SignedText {
  private SignedText() {}

  /** One change to the text: replace {@code [start, end)} with {@code text}. */
  private record Edit(int start, int end, String text) {}

  /** Where one record's context is in the text (character offsets). */
  private static final class Context {
    @Nullable String schema;
    int open = -1; // the '{' of the context
    int close = -1; // its '}'
    int signatureValueStart = -1;
    int signatureValueEnd = -1;
    int fields;
    int firstFieldStart = -1;
  }

  /**
   * {@code text} with a signature in every record {@code signatureOf} signs.
   *
   * @param signatureOf the signature object for a record's schema and context, or null to leave it
   * @throws IOException if {@code text} is not JSON
   */
  static String sign(String text, BiFunction<@Nullable String, JsonNode, @Nullable JsonNode> signatureOf) throws IOException {
    List<Context> contexts = locate(text);
    JsonNode root = RcrtJson.parse(text);
    List<JsonNode> records = new ArrayList<>();
    if (root.isArray()) {
      root.forEach(records::add);
    } else {
      records.add(root);
    }
    List<Edit> edits = new ArrayList<>();
    int next = 0;
    for (JsonNode record : records) {
      if (!record.isObject() || !record.path("context").isObject()) {
        continue;
      }
      Context at = contexts.get(next++);
      JsonNode signature = signatureOf.apply(record.path("schema_name").asText(null), record.get("context"));
      if (signature == null) {
        continue;
      }
      String value = RcrtJson.write(signature);
      if (at.signatureValueStart >= 0) {
        edits.add(new Edit(at.signatureValueStart, at.signatureValueEnd, value));
      } else if (at.fields == 0) {
        edits.add(new Edit(at.open + 1, at.open + 1, "\"signature\": " + value));
      } else {
        int end = at.close; // after the last field's value: back over the whitespace before the closing brace
        while (Character.isWhitespace(text.charAt(end - 1))) {
          end--;
        }
        String between = text.substring(at.open + 1, at.firstFieldStart);
        int newline = between.lastIndexOf('\n');
        String separator = newline >= 0 ? ",\n" + between.substring(newline + 1) : ", ";
        edits.add(new Edit(end, end, separator + "\"signature\": " + value));
      }
    }
    edits.sort(Comparator.comparingInt(Edit::start).reversed());
    StringBuilder out = new StringBuilder(text);
    for (Edit e : edits) {
      out.replace(e.start(), e.end(), e.text());
    }
    return out.toString();
  }

  /** The contexts of the file's records (the root object, or each object of the root array), in order. */
  private static List<Context> locate(String text) throws IOException {
    List<Context> found = new ArrayList<>();
    try (JsonParser p = new JsonFactory().createParser(text)) {
      JsonToken root = p.nextToken();
      if (root == JsonToken.START_ARRAY) {
        for (JsonToken t = p.nextToken(); t != null && t != JsonToken.END_ARRAY; t = p.nextToken()) {
          if (t == JsonToken.START_OBJECT) {
            record(p, found);
          } else {
            p.skipChildren();
          }
        }
      } else if (root == JsonToken.START_OBJECT) {
        record(p, found);
      }
    }
    return found;
  }

  /** Reads one record object (the parser on its '{'), noting where its context is. */
  private static void record(JsonParser p, List<Context> found) throws IOException {
    Context at = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken value = p.nextToken();
      if (name.equals("context") && value == JsonToken.START_OBJECT) {
        at = new Context();
        at.open = offset(p);
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          if (at.fields++ == 0) {
            at.firstFieldStart = offset(p);
          }
          boolean signature = p.currentName().equals("signature");
          p.nextToken();
          int start = offset(p);
          p.skipChildren();
          if (signature) {
            at.signatureValueStart = start;
            at.signatureValueEnd = (int) p.currentLocation().getCharOffset();
          }
        }
        at.close = offset(p);
      } else {
        p.skipChildren();
      }
    }
    if (at != null) {
      found.add(at);
    }
  }

  /** The character offset of the parser's current token. */
  private static int offset(JsonParser p) {
    return (int) p.currentTokenLocation().getCharOffset();
  }
}
