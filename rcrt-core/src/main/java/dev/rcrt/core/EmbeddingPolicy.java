package dev.rcrt.core;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Which breadcrumbs a store embeds, and from what text.
 *
 * <p><b>Which.</b> RCRT's server embeds every record on write except system records: its {@code
 * embedding_policy} skips schemas starting with {@code system.} ({@code system.hygiene.v1}, {@code
 * system.metrics.v1}, …) and embeds everything else, unknown schemas included ({@code
 * user.message.v1}, {@code agent.response.v1}, {@code tool.response.v1}, {@code document.v1},
 * {@code agent.def.v1}, catalogs). {@link #rcrt()} does the same and, unlike the server, also skips
 * every secret record ({@link Breadcrumb#isSecret()}: {@code secret.v1} and its lookalikes, and any
 * record whose {@code sensitivity} is {@code Secret}; a vector
 * can be sent to a remote provider and inverted into its text, and nearest-neighbour probing would
 * tell a reader about content it may not read), and {@code tool.request.v1}: a request holds only a
 * tool's input, which its {@code tool.response.v1} answers, and a {@code breadcrumb-search} call's
 * own request would otherwise be the nearest answer to its query. It skips {@code tool.transpiled.v1}
 * too (the JavaScript the runtime keeps for a TypeScript tool: generated code, not knowledge).
 *
 * <p><b>From what text.</b> RCRT's server embeds the title, a space and the context as compact
 * JSON. The default here embeds the title, then one line {@code path: value} per non-empty
 * scalar of the context (depth first, object keys in their order, array items as {@code path[i]}),
 * because the braces, quotes and key syntax of JSON take places in the model's 256-token window
 * without adding meaning. Text past {@link Builder#maxChars(int)} (default 2,000 characters) is
 * cut; MiniLM reads about 1,000 characters of English in its window.
 *
 * <p>Immutable and thread-safe.
 */
public final class EmbeddingPolicy {
  private static final EmbeddingPolicy RCRT = builder().build();

  private final List<String> skipped;
  private final Function<Breadcrumb, @Nullable String> text;
  private final int maxChars;

  private EmbeddingPolicy(Builder b) {
    this.skipped = List.copyOf(b.skipped);
    this.text = b.text;
    this.maxChars = b.maxChars;
  }

  /** RCRT's policy, as the class comment describes: every schema except {@code system.*}; secrets and tool requests skipped. */
  public static EmbeddingPolicy rcrt() {
    return RCRT;
  }

  /** A builder that starts from {@link #rcrt()}. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The text to embed for {@code breadcrumb}, or empty when this policy does not embed it (a
   * skipped schema, a secret, or a blank text).
   */
  public Optional<String> textOf(Breadcrumb breadcrumb) {
    if (breadcrumb.isSecret() || skips(breadcrumb.schemaName())) {
      return Optional.empty();
    }
    String t = text.apply(breadcrumb);
    if (t == null || t.isBlank()) {
      return Optional.empty();
    }
    return Optional.of(t.length() > maxChars ? t.substring(0, maxChars) : t);
  }

  /** The longest text embedded, in characters: longer record texts and search queries are cut to it. */
  public int maxChars() {
    return maxChars;
  }

  /** Whether records of {@code schemaName} are skipped (null: a record without a schema, never skipped). */
  public boolean skips(@Nullable String schemaName) {
    if (schemaName == null) {
      return false;
    }
    for (String s : skipped) {
      if (s.endsWith("*") ? schemaName.startsWith(s.substring(0, s.length() - 1)) : schemaName.equals(s)) {
        return true;
      }
    }
    return false;
  }

  /** The default text: the title, then {@code path: value} lines for the context's scalars. */
  public static String titleAndValues(Breadcrumb breadcrumb) {
    StringBuilder out = new StringBuilder(breadcrumb.title());
    leaves("", breadcrumb.context(), out);
    return out.toString();
  }

  private static void leaves(String path, JsonNode node, StringBuilder out) {
    if (out.length() > 16_384) {
      return;
    }
    if (node.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        leaves(path.isEmpty() ? e.getKey() : path + "." + e.getKey(), e.getValue(), out);
      }
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        leaves(path + "[" + i + "]", node.get(i), out);
      }
    } else if (!node.isNull() && !node.asText().isEmpty()) {
      out.append('\n').append(path).append(": ").append(node.asText());
    }
  }

  /** Builder for {@link EmbeddingPolicy}; starts from {@link #rcrt()}. Not thread-safe. */
  public static final class Builder {
    private final List<String> skipped = new ArrayList<>(List.of("system.*", "secret.v1", "tool.request.v1", "tool.transpiled.v1"));
    private Function<Breadcrumb, @Nullable String> text = EmbeddingPolicy::titleAndValues;
    private int maxChars = 2_000;

    private Builder() {}

    /**
     * Also skips these schemas; a name ending in {@code *} is a prefix ({@code "chat.*"}).
     * {@code system.*}, {@code secret.v1} and {@code tool.request.v1} are always skipped.
     */
    public Builder skipSchemas(String... schemaNames) {
      for (String s : schemaNames) {
        skipped.add(Objects.requireNonNull(s, "schema name"));
      }
      return this;
    }

    /**
     * The text embedded for a record; default {@link EmbeddingPolicy#titleAndValues}. Return null
     * or blank to skip a record. Called on the store's embedding thread; must be thread-safe and
     * must not read the store.
     */
    public Builder text(Function<Breadcrumb, @Nullable String> text) {
      this.text = Objects.requireNonNull(text, "text");
      return this;
    }

    /** The longest text embedded, in characters; longer texts are cut. Default 2,000. */
    public Builder maxChars(int maxChars) {
      if (maxChars < 1) {
        throw new IllegalArgumentException("maxChars < 1: " + maxChars);
      }
      this.maxChars = maxChars;
      return this;
    }

    /** The policy. */
    public EmbeddingPolicy build() {
      return new EmbeddingPolicy(this);
    }
  }
}
