package dev.rcrt.langchain4j;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.exception.RetriableException;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.rcrt.core.EmbeddingErrorCode;
import dev.rcrt.core.EmbeddingException;
import dev.rcrt.core.EmbeddingProvider;
import dev.rcrt.core.RcrtException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Any LangChain4j {@link EmbeddingModel} (in-process ONNX models, OpenAI, Ollama, Vertex AI, …) as
 * an {@link EmbeddingProvider}, so that a store embeds its records with it:
 *
 * <pre>{@code
 * EmbeddingProvider minilm = LangChain4jEmbeddings.of(new AllMiniLmL6V2QuantizedEmbeddingModel());
 * BreadcrumbStore store = InMemoryBreadcrumbStore.builder().embeddings(minilm).build();
 * }</pre>
 *
 * <p>The model's {@code modelName()} names the vectors (its class name when it reports {@code
 * "unknown"}); its {@code dimension()} is asked once, when this adapter is made (some models embed
 * a probe text to learn it). LangChain4j's {@code RetriableException}s (timeouts, rate limits,
 * server errors) and I/O failures become {@code embedding_unavailable}, which a store retries
 * later; every other failure (an invalid request, a text the model cannot take, a wrong number of
 * vectors) becomes {@code embedding_failed}, which a store does not retry. Thread-safe as the model is; closes nothing.
 */
public final class LangChain4jEmbeddings implements EmbeddingProvider {
  private final EmbeddingModel model;
  private final String name;
  private final int dimensions;
  private final int maxBatchSize;

  private LangChain4jEmbeddings(EmbeddingModel model, String name, int dimensions, int maxBatchSize) {
    this.model = model;
    this.name = name;
    this.dimensions = dimensions;
    this.maxBatchSize = maxBatchSize;
  }

  /**
   * Adapts {@code model}, embedding at most 32 texts per call.
   *
   * @throws EmbeddingException {@code embedding_unavailable} when the model cannot tell its dimension
   */
  public static LangChain4jEmbeddings of(EmbeddingModel model) {
    return of(model, 32);
  }

  /** Adapts {@code model}, embedding at most {@code maxBatchSize} texts per call (providers cap it: OpenAI at 2,048). */
  public static LangChain4jEmbeddings of(EmbeddingModel model, int maxBatchSize) {
    Objects.requireNonNull(model, "model");
    if (maxBatchSize < 1) {
      throw new IllegalArgumentException("maxBatchSize < 1: " + maxBatchSize);
    }
    String reported = model.modelName();
    String name = reported == null || reported.isBlank() || reported.equals("unknown") ? model.getClass().getSimpleName() : reported;
    int dimensions;
    try {
      dimensions = model.dimension();
    } catch (RuntimeException e) {
      throw unavailable(name, e);
    }
    return new LangChain4jEmbeddings(model, name, dimensions, maxBatchSize);
  }

  @Override
  public String model() {
    return name;
  }

  @Override
  public int dimensions() {
    return dimensions;
  }

  @Override
  public int maxBatchSize() {
    return maxBatchSize;
  }

  @Override
  public List<float[]> embed(List<String> texts) {
    List<TextSegment> segments = new ArrayList<>(texts.size());
    for (String t : texts) {
      // LangChain4j refuses blank segments: a blank text is embedded as "(empty)"
      segments.add(TextSegment.from(t.isBlank() ? "(empty)" : t));
    }
    List<Embedding> embeddings;
    try {
      embeddings = model.embedAll(segments).content();
    } catch (RcrtException e) {
      throw e;
    } catch (RetriableException | UncheckedIOException e) {
      throw unavailable(name, e);
    } catch (RuntimeException e) {
      throw new EmbeddingException(EmbeddingErrorCode.EMBEDDING_FAILED, "LangChain4j model '" + name + "' refused the texts: " + e, e);
    }
    if (embeddings == null || embeddings.size() != texts.size()) {
      throw new EmbeddingException(
          EmbeddingErrorCode.EMBEDDING_FAILED,
          "LangChain4j model '" + name + "' returned " + (embeddings == null ? "no" : embeddings.size()) + " embeddings for " + texts.size() + " texts",
          null);
    }
    List<float[]> out = new ArrayList<>(embeddings.size());
    for (Embedding e : embeddings) {
      out.add(e.vector());
    }
    return out;
  }

  private static EmbeddingException unavailable(String name, RuntimeException e) {
    return new EmbeddingException(EmbeddingErrorCode.EMBEDDING_UNAVAILABLE, "LangChain4j model '" + name + "' failed: " + e, e);
  }

  @Override
  public String toString() {
    return "LangChain4jEmbeddings[" + name + ", " + dimensions + " dimensions]";
  }
}
