package dev.rcrt.embeddings.minilm;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.List;

/**
 * Does what ONNX Runtime's shutdown hook does (releases the binding's reference to the native
 * environment, {@code OrtEnvironment.close(api, handle)}) while the model is in use, then goes on
 * embedding and loading: prints {@code survived} when the environment stood.
 */
public final class EmbedAfterRelease {
  private EmbedAfterRelease() {}

  public static void main(String[] args) throws Exception {
    MiniLmEmbeddings model = MiniLmEmbeddings.create();
    model.embed(List.of("before the release"));
    Class<?> environment = Class.forName("ai.onnxruntime.OrtEnvironment");
    Object instance = environment.getMethod("getEnvironment").invoke(null);
    Field handle = environment.getDeclaredField("nativeHandle");
    handle.setAccessible(true);
    Field api = Class.forName("ai.onnxruntime.OnnxRuntime").getDeclaredField("ortApiHandle");
    api.setAccessible(true);
    Method close = environment.getDeclaredMethod("close", long.class, long.class);
    close.setAccessible(true);
    close.invoke(null, api.getLong(null), handle.getLong(instance)); // what the hook's OrtEnvCloser runs
    for (int i = 0; i < 20; i++) {
      model.embed(List.of("after the release, text " + i, "and another one " + i));
    }
    // a session made after the release, as a model that was still loading would make it
    Method createSession = environment.getMethod("createSession", byte[].class);
    try (java.io.InputStream onnx = dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel.class
        .getResourceAsStream("/all-minilm-l6-v2-q.onnx")) {
      if (onnx != null) {
        ((AutoCloseable) createSession.invoke(instance, (Object) onnx.readAllBytes())).close();
      }
    }
    System.out.println("survived");
  }
}
