package dev.rcrt.benchmarks;

import dev.rcrt.core.EmbeddingProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A synthetic provider for measuring what does not depend on the model: clustered random vectors,
 * 384 dimensions, one of 1,000 centres chosen by the text's hash plus noise of a third of the
 * centre's length; embeds in microseconds. Thread-safe.
 */
public final class ClusteredEmbeddings implements EmbeddingProvider {
  private static final int DIMENSIONS = 384;
  private static final float[][] CENTRES = new float[1000][DIMENSIONS];

  static {
    Random r = new Random(42);
    for (float[] c : CENTRES) {
      for (int i = 0; i < DIMENSIONS; i++) {
        c[i] = (float) r.nextGaussian();
      }
    }
  }

  @Override
  public String model() {
    return "clustered-random";
  }

  @Override
  public int dimensions() {
    return DIMENSIONS;
  }

  @Override
  public List<float[]> embed(List<String> texts) {
    List<float[]> out = new ArrayList<>(texts.size());
    for (String t : texts) {
      Random r = new Random(t.hashCode());
      float[] centre = CENTRES[Math.floorMod(t.hashCode(), CENTRES.length)];
      float[] v = new float[DIMENSIONS];
      for (int i = 0; i < DIMENSIONS; i++) {
        v[i] = centre[i] + (float) (r.nextGaussian() / 3);
      }
      out.add(v);
    }
    return out;
  }
}
