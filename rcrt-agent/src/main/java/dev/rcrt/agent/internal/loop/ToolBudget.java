package dev.rcrt.agent.internal.loop;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingRegistry;
import com.knuddels.jtokkit.api.EncodingType;
import dev.rcrt.agent.ToolPrompt;
import dev.rcrt.agent.ToolPromptAdapter;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolDefinition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps the tool descriptions within an agent's token budget. Each tool costs the tokens of its
 * text-prompt entry plus its OpenAI {@code tools} entry, counted with jtokkit ({@code o200k_base}
 * for the GPT-4o, GPT-4.1, GPT-5 and o-series models, else {@code cl100k_base}) and cached per tool
 * breadcrumb version. When the tools exceed the budget they are ranked by BM25 relevance of their
 * name, description and category to the user's message, and offered best first while they fit.
 * Thread-safe.
 */
public final class ToolBudget {
  private static final EncodingRegistry REGISTRY = Encodings.newLazyEncodingRegistry();
  private static final double K1 = 1.2;
  private static final double B = 0.75;

  private final ToolPromptAdapter adapter = new ToolPromptAdapter();
  /** The most entries each cache keeps; past it the cache starts again (entries are cheap to recompute). */
  static final int MAX_CACHED = 4096;

  private final Map<String, Integer> costs = new ConcurrentHashMap<>();
  private final Map<String, List<String>> documents = new ConcurrentHashMap<>();

  private static final java.util.regex.Pattern O_SERIES = java.util.regex.Pattern.compile("(^|/)o[1-9]");

  /** The encoding of each model name asked about, bounded like the other caches (names come from records). */
  private static final Map<String, Encoding> BY_MODEL = new ConcurrentHashMap<>();

  /** The encoding for {@code model}, worked out once per model name while cached: a turn asks for every tool. */
  public static Encoding encoding(String model) {
    return cached(BY_MODEL, model, name -> {
      String m = name.toLowerCase(Locale.ROOT);
      boolean o200k = m.contains("gpt-4o") || m.contains("gpt-4.1") || m.contains("gpt-5") || O_SERIES.matcher(m).find();
      return REGISTRY.getEncoding(o200k ? EncodingType.O200K_BASE : EncodingType.CL100K_BASE);
    });
  }

  /** {@code cache}'s value for {@code key}, computed once while cached; the cache is emptied when it passes {@link #MAX_CACHED}. */
  private static <V> V cached(Map<String, V> cache, String key, java.util.function.Function<String, V> compute) {
    V value = cache.computeIfAbsent(key, compute);
    if (cache.size() > MAX_CACHED) {
      cache.clear();
    }
    return value;
  }

  /**
   * The tokens {@code tool} costs in a prompt for {@code model}: with native function calling its
   * text entry (without inputs) plus its {@code tools} entry, else its full text entry.
   */
  public int cost(ToolDefinition tool, String model, boolean nativeCalls) {
    Encoding enc = encoding(model);
    return cached(
        costs,
        tool.sourceId() + "@" + tool.sourceVersion() + "/" + enc.getName() + (nativeCalls ? "/native" : "/text"),
        k -> {
          if (!nativeCalls) {
            return enc.countTokens(adapter.adapt(List.of(tool)).text());
          }
          ToolPrompt alone = adapter.adaptForFunctionCalling(List.of(tool));
          return enc.countTokens(alone.text()) + enc.countTokens(RcrtJson.write(alone.tools()));
        });
  }

  /**
   * The tools to offer: all of them when they fit in {@code budget} tokens, else the most relevant
   * to {@code query} that fit, in their original order.
   */
  public List<ToolDefinition> select(List<ToolDefinition> tools, String query, int budget, String model, boolean nativeCalls) {
    int total = 0;
    for (ToolDefinition t : tools) {
      total += cost(t, model, nativeCalls);
    }
    if (total <= budget) {
      return tools;
    }
    Map<ToolDefinition, Double> scores = bm25(tools, terms(query), this::document);
    List<ToolDefinition> ranked = new ArrayList<>(tools);
    ranked.sort(Comparator.comparingDouble((ToolDefinition t) -> -scores.getOrDefault(t, 0.0)).thenComparing(ToolDefinition::name));
    List<ToolDefinition> chosen = new ArrayList<>();
    int used = 0;
    for (ToolDefinition t : ranked) {
      int c = cost(t, model, nativeCalls);
      if (used + c <= budget) {
        chosen.add(t);
        used += c;
      }
    }
    List<ToolDefinition> inOrder = new ArrayList<>(tools);
    inOrder.retainAll(chosen);
    return inOrder;
  }

  /** A tool's BM25 document: the terms of its name, description and category, cached per version. */
  private List<String> document(ToolDefinition t) {
    return cached(
        documents,
        t.sourceId() + "@" + t.sourceVersion(),
        k -> terms(t.name() + " " + t.description() + " " + (t.category() == null ? "" : t.category())));
  }

  private static Map<ToolDefinition, Double> bm25(
      List<ToolDefinition> tools, List<String> query, java.util.function.Function<ToolDefinition, List<String>> document) {
    List<List<String>> docs = new ArrayList<>();
    Map<String, Integer> df = new HashMap<>();
    double avg = 0;
    for (ToolDefinition t : tools) {
      List<String> words = document.apply(t);
      docs.add(words);
      avg += words.size();
      words.stream().distinct().forEach(w -> df.merge(w, 1, Integer::sum));
    }
    avg = Math.max(1, avg / Math.max(1, tools.size()));
    Map<ToolDefinition, Double> scores = new HashMap<>();
    for (int i = 0; i < tools.size(); i++) {
      List<String> doc = docs.get(i);
      Map<String, Integer> tf = new HashMap<>();
      doc.forEach(w -> tf.merge(w, 1, Integer::sum));
      double score = 0;
      for (String q : query) {
        Integer f = tf.get(q);
        if (f != null) {
          int withTerm = df.getOrDefault(q, 0); // at least 1: this document has it
          double idf = Math.log(1 + (tools.size() - withTerm + 0.5) / (withTerm + 0.5));
          score += idf * f * (K1 + 1) / (f + K1 * (1 - B + B * doc.size() / avg));
        }
      }
      scores.put(tools.get(i), score);
    }
    return scores;
  }

  /** Lowercase words of letters and digits; names split on {@code - _ .}. */
  static List<String> terms(String text) {
    List<String> out = new ArrayList<>();
    for (String w : text.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
      if (w.length() > 1) {
        out.add(w);
      }
    }
    return out;
  }
}
