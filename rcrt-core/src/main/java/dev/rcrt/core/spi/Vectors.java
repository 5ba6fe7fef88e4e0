package dev.rcrt.core.spi;

import dev.rcrt.core.EmbeddingErrorCode;
import dev.rcrt.core.EmbeddingException;
import dev.rcrt.core.EmbeddingProvider;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** Arithmetic on embedding vectors: checked embedding, unit length and dot products. Stateless. */
public final class Vectors {
  private Vectors() {}

  /**
   * {@code texts} embedded by {@code provider}, as unit vectors, checked to be one per text of the
   * provider's dimensions.
   *
   * @throws EmbeddingException the provider's own, or {@code embedding_failed} for a wrong count or
   *     length of vectors, or a vector that cannot be scaled
   */
  public static List<float[]> embed(EmbeddingProvider provider, List<String> texts) {
    @Nullable List<float[]> vectors = provider.embed(texts);
    if (vectors == null || vectors.size() != texts.size()) {
      throw new EmbeddingException(
          EmbeddingErrorCode.EMBEDDING_FAILED,
          "model '" + provider.model() + "' returned " + (vectors == null ? "no list" : vectors.size() + " vectors") + " for " + texts.size() + " texts",
          null);
    }
    List<float[]> out = new ArrayList<>(vectors.size());
    for (float[] v : vectors) {
      if (v == null || v.length != provider.dimensions()) {
        throw new EmbeddingException(
            EmbeddingErrorCode.EMBEDDING_FAILED,
            "model '" + provider.model() + "' returned a vector of " + (v == null ? "null" : v.length + " dimensions") + ", expected " + provider.dimensions(),
            null);
      }
      out.add(unit(v, provider.model()));
    }
    return out;
  }

  /**
   * A copy of {@code v} scaled to unit length.
   *
   * @throws EmbeddingException {@code embedding_failed} for a zero vector or one with NaN or
   *     infinite components (it cannot be compared)
   */
  public static float[] unit(float[] v, String model) {
    double sum = 0;
    for (float x : v) {
      sum += (double) x * x;
    }
    if (!(sum > 0) || Double.isInfinite(sum)) {
      throw new EmbeddingException(
          EmbeddingErrorCode.EMBEDDING_FAILED, "model '" + model + "' returned a vector of length " + Math.sqrt(sum) + ", which cannot be compared", null);
    }
    float scale = (float) (1 / Math.sqrt(sum));
    float[] out = new float[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = v[i] * scale;
    }
    return out;
  }

  /** The dot product of two vectors of the same length: their cosine similarity when both are unit length. */
  public static float dot(float[] a, float[] b) {
    return dot(a, b, 0);
  }

  /**
   * The dot product of {@code a} and the {@code a.length} components of {@code b} from {@code
   * offset}: a vector kept in a larger array.
   */
  public static float dot(float[] a, float[] b, int offset) {
    float s0 = 0;
    float s1 = 0;
    float s2 = 0;
    float s3 = 0;
    float s4 = 0;
    float s5 = 0;
    float s6 = 0;
    float s7 = 0;
    int n = a.length;
    int i = 0;
    for (; i + 7 < n; i += 8) {
      int j = offset + i;
      s0 += a[i] * b[j];
      s1 += a[i + 1] * b[j + 1];
      s2 += a[i + 2] * b[j + 2];
      s3 += a[i + 3] * b[j + 3];
      s4 += a[i + 4] * b[j + 4];
      s5 += a[i + 5] * b[j + 5];
      s6 += a[i + 6] * b[j + 6];
      s7 += a[i + 7] * b[j + 7];
    }
    for (; i < n; i++) {
      s0 += a[i] * b[offset + i];
    }
    return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
  }
}
