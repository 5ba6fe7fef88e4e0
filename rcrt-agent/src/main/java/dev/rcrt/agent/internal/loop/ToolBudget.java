package dev.rcrt.agent.internal.loop;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingRegistry;
import com.knuddels.jtokkit.api.EncodingType;
import dev.rcrt.agent.ToolPrompt;
import dev.rcrt.agent.ToolPromptAdapter;
import dev.rcrt.core.EmbeddingException;
import dev.rcrt.core.EmbeddingProvider;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.spi.Vectors;
import dev.rcrt.tools.ToolDefinition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the tool descriptions within an agent's token budget. Each tool costs the tokens of its
 * text-prompt entry plus its OpenAI {@code tools} entry, counted with jtokkit ({@code o200k_base}
 * for the GPT-4o, GPT-4.1, GPT-5 and o-series models, else {@code cl100k_base}) and cached per tool
 * breadcrumb version. When the tools exceed the budget they are ranked by relevance to the user's
 * message and offered best first while they fit.
 *
 * <p>Relevance is a hybrid of meaning and words when an {@link EmbeddingProvider} is given (the
 * store's, when it searches by meaning in process): each tool's text ({@code name: description
 * (category)}) is embedded once per tool version and cached, the message once per turn, and the
 * cosine similarity {@code c} and the BM25 score {@code b} (k1 1.2, b 0.75, over the same text, the
 * message's English stopwords left out) are fused by a convex combination of min-max normalised
 * scores: {@code 0.7 × (c − min c) / (max c − min c) + 0.3 × b / max b} (Bruch, Gai and Ingber,
 * "An Analysis of Fusion Functions for Hybrid Retrieval", ACM TOIS 2023: a convex combination beats
 * reciprocal rank fusion, whose ranks let tools that share only common words with the message crowd
 * out the one that matches by meaning). A tool that shares no word with the message is still
 * offered first when its meaning is nearest. Without a provider, or when it fails (logged once per
 * failure streak), BM25 alone ranks.
 *
 * <p>Thread-safe.
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
  private final Map<String, float[]> vectors = new ConcurrentHashMap<>();
  private volatile boolean failing;

  /** The most tool vectors kept (about 1.6 KB each at 384 dimensions). */
  static final int MAX_VECTORS = 20_000;

  /** The weight of meaning in the hybrid; words get the rest. */
  static final double MEANING_WEIGHT = 0.7;
  private static final Logger LOG = LoggerFactory.getLogger(ToolBudget.class);

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
  public List<ToolDefinition> select(
      List<ToolDefinition> tools, String query, int budget, String model, boolean nativeCalls, @Nullable EmbeddingProvider meaning) {
    int total = 0;
    for (ToolDefinition t : tools) {
      total += cost(t, model, nativeCalls);
    }
    if (total <= budget) {
      return tools;
    }
    // by position, never by ToolDefinition: a record's hashCode and equals walk its JSON schemas
    double[] scores = relevance(tools, query, meaning);
    Integer[] ranked = new Integer[tools.size()];
    for (int i = 0; i < ranked.length; i++) {
      ranked[i] = i;
    }
    java.util.Arrays.sort(ranked, Comparator.comparingDouble((Integer i) -> -scores[i]).thenComparing(i -> tools.get(i).name()));
    boolean[] chosen = new boolean[tools.size()];
    int used = 0;
    for (int i : ranked) {
      int c = cost(tools.get(i), model, nativeCalls);
      if (used + c <= budget) {
        chosen[i] = true;
        used += c;
      }
    }
    List<ToolDefinition> inOrder = new ArrayList<>();
    for (int i = 0; i < chosen.length; i++) {
      if (chosen[i]) {
        inOrder.add(tools.get(i));
      }
    }
    return inOrder;
  }

  /**
   * Each tool's relevance to {@code query}, by position in {@code tools}: the hybrid the class
   * comment describes, or BM25 alone without {@code meaning}.
   */
  public double[] relevance(List<ToolDefinition> tools, String query, @Nullable EmbeddingProvider meaning) {
    double[] words = bm25(tools, withoutStopwords(terms(query)), this::document);
    if (meaning == null || tools.isEmpty()) {
      return words;
    }
    float[] similarities;
    try {
      similarities = similarities(tools, query, meaning);
    } catch (EmbeddingException e) {
      if (!failing) {
        failing = true;
        LOG.warn("tools are ranked by their words alone while embedding fails: {}", e.getMessage());
      }
      return words;
    }
    failing = false;
    float min = Float.MAX_VALUE;
    float max = -Float.MAX_VALUE;
    for (float c : similarities) {
      min = Math.min(min, c);
      max = Math.max(max, c);
    }
    double maxWords = 0;
    for (double b : words) {
      maxWords = Math.max(maxWords, b);
    }
    double[] fused = new double[tools.size()];
    for (int i = 0; i < fused.length; i++) {
      double c = max > min ? (similarities[i] - min) / (max - min) : 0;
      double b = maxWords > 0 ? words[i] / maxWords : 0;
      fused[i] = MEANING_WEIGHT * c + (1 - MEANING_WEIGHT) * b;
    }
    return fused;
  }

  /** The cosine similarity of each tool's text to {@code query}: tools embedded once per version (cached), the query once. */
  private float[] similarities(List<ToolDefinition> tools, String query, EmbeddingProvider meaning) {
    float[] q = Vectors.embed(meaning, List.of(query)).get(0);
    String[] keys = new String[tools.size()];
    float[][] found = new float[tools.size()][];
    List<Integer> missing = new ArrayList<>();
    for (int i = 0; i < keys.length; i++) {
      keys[i] = vectorKey(tools.get(i), meaning);
      float[] cached = vectors.get(keys[i]);
      if (cached == null) {
        missing.add(i); // filled below
      } else {
        found[i] = cached;
      }
    }
    if (vectors.size() + missing.size() > MAX_VECTORS) {
      vectors.clear(); // bounded: tool records come and go; the next turn embeds what it needs again
    }
    for (int from = 0; from < missing.size(); from += meaning.maxBatchSize()) {
      List<Integer> batch = missing.subList(from, Math.min(missing.size(), from + meaning.maxBatchSize()));
      List<String> texts = new ArrayList<>(batch.size());
      for (int i : batch) {
        ToolDefinition t = tools.get(i);
        texts.add(t.name() + ": " + t.description() + (t.category() == null ? "" : " (" + t.category() + ")"));
      }
      List<float[]> embedded = Vectors.embed(meaning, texts);
      for (int k = 0; k < batch.size(); k++) {
        int i = batch.get(k);
        found[i] = embedded.get(k);
        vectors.put(keys[i], found[i]);
      }
    }
    float[] out = new float[tools.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = Vectors.dot(q, found[i]);
    }
    return out;
  }

  private static String vectorKey(ToolDefinition t, EmbeddingProvider meaning) {
    return t.sourceId() + "@" + t.sourceVersion() + "/" + t.name() + "/" + meaning.model();
  }

  /** Lucene's English stop words ({@code EnglishAnalyzer.ENGLISH_STOP_WORDS_SET}) plus question words, which say nothing about which tool fits. */
  private static final java.util.Set<String> STOPWORDS = java.util.Set.of(
      "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not", "of", "on", "or",
      "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was", "will", "with",
      "what", "which", "who", "how", "many", "much", "do", "does", "can", "could", "would", "should", "me", "my", "i", "you", "your",
      "please", "from", "about", "we", "our", "it's", "when", "where", "why", "some", "any");

  private static List<String> withoutStopwords(List<String> terms) {
    List<String> out = new ArrayList<>(terms.size());
    for (String t : terms) {
      if (!STOPWORDS.contains(t)) {
        out.add(t);
      }
    }
    return out;
  }

  /** A tool's BM25 document: the terms of its name, description and category, cached per version. */
  private List<String> document(ToolDefinition t) {
    return cached(
        documents,
        t.sourceId() + "@" + t.sourceVersion(),
        k -> terms(t.name() + " " + t.description() + " " + (t.category() == null ? "" : t.category())));
  }

  private static double[] bm25(
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
    double[] scores = new double[tools.size()];
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
      scores[i] = score;
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
