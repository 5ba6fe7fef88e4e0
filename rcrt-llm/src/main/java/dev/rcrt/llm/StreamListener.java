package dev.rcrt.llm;

/**
 * Receives the answer's text as the model produces it (OpenAI chat-completions streaming, {@code
 * choices[0].delta.content}). Called on the thread that reads the stream, in order; keep it quick.
 * Clients that cannot stream call it once with the whole text.
 */
@FunctionalInterface
public interface StreamListener {
  /** One fragment of the answer's text, never empty. */
  void onToken(String text);
}
