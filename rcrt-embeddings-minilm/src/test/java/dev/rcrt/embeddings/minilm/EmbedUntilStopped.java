package dev.rcrt.embeddings.minilm;

import java.util.ArrayList;
import java.util.List;

/**
 * A process as a Spring Boot application with the model is: threads embedding all the time, and
 * the model closed by a shutdown hook (the application context's). Prints {@link #LOADING} as the
 * model starts to load and {@link #EMBEDDING} once a batch is done; a signal ends it.
 */
public final class EmbedUntilStopped {
  /** Printed as the model starts to load: text no log line of the libraries holds. */
  static final String LOADING = "event: loading";
  /** Printed once a batch is embedded. */
  static final String EMBEDDING = "event: embedding";

  private EmbedUntilStopped() {}

  public static void main(String[] args) throws Exception {
    MiniLmEmbeddings model = MiniLmEmbeddings.create();
    Runtime.getRuntime().addShutdownHook(new Thread(model::close, "context-close"));
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      texts.add("how to create an agent that answers from records, number " + i);
    }
    System.out.println(LOADING);
    System.out.flush();
    model.embed(texts);
    System.out.println(EMBEDDING);
    System.out.flush();
    for (int t = 0; t < 2; t++) {
      Thread worker = new Thread(() -> {
        while (true) {
          try {
            model.embed(texts);
          } catch (RuntimeException e) {
            // closed: the hook ran
          }
        }
      });
      worker.setDaemon(true);
      worker.start();
    }
    Thread.currentThread().join();
  }
}
