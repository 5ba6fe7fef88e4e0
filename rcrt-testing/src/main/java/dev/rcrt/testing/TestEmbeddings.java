package dev.rcrt.testing;

import dev.rcrt.core.EmbeddingErrorCode;
import dev.rcrt.core.EmbeddingException;
import dev.rcrt.core.EmbeddingProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * A deterministic {@link EmbeddingProvider} for tests of the machinery around embeddings (queues,
 * indexes, versions, failures), not of meaning: each word of two or more letters or digits adds 1
 * to one of 256 dimensions chosen by its hash, so texts that share words are near and texts that
 * share none are orthogonal (up to hash collisions). Failures are injected: {@link #failWith}
 * makes every call fail until {@link #recover()}, {@link #refuse} makes texts containing a word
 * fail with {@code embedding_failed}, {@link #hold()} makes calls wait until {@link #release()}.
 * Thread-safe.
 */
public final class TestEmbeddings implements EmbeddingProvider {
  /** The vectors' length. */
  public static final int DIMENSIONS = 256;

  private final AtomicInteger calls = new AtomicInteger();
  private final AtomicInteger longest = new AtomicInteger();
  private volatile @Nullable EmbeddingException failure;
  private volatile @Nullable String refused;
  private volatile CountDownLatch gate = new CountDownLatch(0);

  @Override
  public String model() {
    return "test-words";
  }

  @Override
  public int dimensions() {
    return DIMENSIONS;
  }

  @Override
  public List<float[]> embed(List<String> texts) {
    calls.incrementAndGet();
    try {
      gate.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new EmbeddingException(EmbeddingErrorCode.EMBEDDING_UNAVAILABLE, "interrupted", e);
    }
    EmbeddingException f = failure;
    if (f != null) {
      throw f;
    }
    List<float[]> out = new ArrayList<>(texts.size());
    for (String text : texts) {
      longest.accumulateAndGet(text.length(), Math::max);
      String r = refused;
      if (r != null && words(text).contains(r)) {
        throw new EmbeddingException(EmbeddingErrorCode.EMBEDDING_FAILED, "test-words refuses texts with '" + r + "'", null);
      }
      out.add(vector(text));
    }
    return out;
  }

  /** The (unnormalised) vector of {@code text}; the zero vector's place is taken by dimension 0 for a text without words. */
  public static float[] vector(String text) {
    float[] v = new float[DIMENSIONS];
    for (String w : words(text)) {
      v[Math.floorMod(w.hashCode(), DIMENSIONS)] += 1;
    }
    if (words(text).isEmpty()) {
      v[0] = 1;
    }
    return v;
  }

  private static List<String> words(String text) {
    List<String> out = new ArrayList<>();
    for (String w : text.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
      if (w.length() > 1) {
        out.add(w);
      }
    }
    return out;
  }

  /** Every call fails with {@code e} until {@link #recover()}. */
  public void failWith(EmbeddingException e) {
    this.failure = e;
  }

  /** Calls succeed again. */
  public void recover() {
    this.failure = null;
  }

  /** A text containing the word {@code word} fails its whole call with {@code embedding_failed}. */
  public void refuse(String word) {
    this.refused = word.toLowerCase(Locale.ROOT);
  }

  /** Calls wait from now until {@link #release()}. */
  public void hold() {
    this.gate = new CountDownLatch(1);
  }

  /** Waiting and later calls go on. */
  public void release() {
    gate.countDown();
  }

  /** The length of the longest text {@link #embed} was given, in characters. */
  public int longestText() {
    return longest.get();
  }

  /** How many times {@link #embed} was called. */
  public int calls() {
    return calls.get();
  }
}
