package dev.rcrt.core.spi;

import dev.rcrt.core.EmbeddingErrorCode;
import dev.rcrt.core.EmbeddingException;

/** Arithmetic on embedding vectors: unit length and dot products. Stateless. */
public final class Vectors {
  private Vectors() {}

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
    float s0 = 0;
    float s1 = 0;
    float s2 = 0;
    float s3 = 0;
    int n = a.length;
    int i = 0;
    for (; i + 3 < n; i += 4) {
      s0 += a[i] * b[i];
      s1 += a[i + 1] * b[i + 1];
      s2 += a[i + 2] * b[i + 2];
      s3 += a[i + 3] * b[i + 3];
    }
    for (; i < n; i++) {
      s0 += a[i] * b[i];
    }
    return (s0 + s1) + (s2 + s3);
  }
}
