package dev.rcrt.llm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.EmbeddingErrorCode;
import dev.rcrt.core.EmbeddingException;
import dev.rcrt.core.EmbeddingProvider;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.llm.internal.openai.Exchange;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * OpenAI's embeddings API ({@code POST /v1/embeddings}: {@code {model, input: [texts],
 * encoding_format: "float", dimensions?}} → {@code {data: [{index, embedding}]}}) on an {@link
 * OpenAiCompatibleLlmClient}'s endpoint; made by {@link OpenAiCompatibleLlmClient#embeddings}.
 * Thread-safe.
 */
final class OpenAiEmbeddings implements EmbeddingProvider {
  private final OpenAiCompatibleLlmClient client;
  private final Exchange exchange;
  private final URI uri;
  private final String model;
  private final int dimensions;
  private final boolean sendDimensions;
  private final String where;

  OpenAiEmbeddings(OpenAiCompatibleLlmClient client, Exchange exchange, URI uri, String model, int dimensions, boolean sendDimensions) {
    this.client = client;
    this.exchange = exchange;
    this.uri = uri;
    this.model = Objects.requireNonNull(model, "model");
    if (model.isBlank()) {
      throw new IllegalArgumentException("model is blank");
    }
    if (dimensions < 1) {
      throw new IllegalArgumentException("dimensions < 1: " + dimensions);
    }
    this.dimensions = dimensions;
    this.sendDimensions = sendDimensions;
    this.where = uri.getScheme() + "://" + uri.getRawAuthority() + uri.getRawPath();
  }

  @Override
  public String model() {
    return model;
  }

  @Override
  public int dimensions() {
    return dimensions;
  }

  @Override
  public List<float[]> embed(List<String> texts) {
    ObjectNode body = RcrtJson.object().put("model", model).put("encoding_format", "float");
    if (sendDimensions) {
      body.put("dimensions", dimensions);
    }
    ArrayNode input = body.putArray("input");
    // OpenAI refuses empty strings in input
    texts.forEach(t -> input.add(t.isEmpty() ? " " : t));
    JsonNode answer;
    try {
      answer = client.retrying(() -> exchange.post(uri, body));
    } catch (LlmException e) {
      throw new EmbeddingException(
          e.isRetriable() ? EmbeddingErrorCode.EMBEDDING_UNAVAILABLE : EmbeddingErrorCode.EMBEDDING_FAILED,
          "embedding model '" + model + "': " + e.getMessage(), e);
    }
    JsonNode data = answer.path("data");
    if (!data.isArray() || data.size() != texts.size()) {
      throw failed("answered " + (data.isArray() ? data.size() + " embeddings" : "no 'data' array") + " for " + texts.size() + " texts");
    }
    float[][] out = new float[texts.size()][];
    for (JsonNode item : data) {
      int index = item.path("index").asInt(-1);
      JsonNode embedding = item.path("embedding");
      if (index < 0 || index >= out.length || out[index] != null || !embedding.isArray()) {
        throw failed("answered an item without a usable 'index' and 'embedding' array (index " + item.path("index") + ")");
      }
      if (embedding.size() != dimensions) {
        throw failed("answered vectors of " + embedding.size() + " dimensions, " + dimensions + " expected: check the model name and the dimensions given");
      }
      float[] v = new float[dimensions];
      for (int i = 0; i < dimensions; i++) {
        JsonNode x = embedding.get(i);
        if (!x.isNumber()) {
          throw failed("answered a vector with a component that is not a number");
        }
        v[i] = (float) x.asDouble();
      }
      out[index] = v;
    }
    return new ArrayList<>(List.of(out));
  }

  private EmbeddingException failed(String what) {
    return new EmbeddingException(EmbeddingErrorCode.EMBEDDING_FAILED, "embedding endpoint " + where + " (model '" + model + "') " + what, null);
  }

  @Override
  public String toString() {
    return "OpenAiEmbeddings[" + where + ", " + model + ", " + dimensions + " dimensions]";
  }
}
