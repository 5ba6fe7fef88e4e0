package dev.rcrt.testing;

import dev.rcrt.llm.ChatRequest;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.LlmClient;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * An {@link LlmClient} that answers from a script instead of a model, and records every request.
 * For tests, examples and benchmarks of code that embeds an agent: no network, deterministic. A
 * streamed request's listener gets each text answer in one piece.
 *
 * <p>Thread-safe. {@link #requests()} returns a snapshot.
 */
public final class ScriptedLlmClient implements LlmClient {
  private final Function<ChatRequest, ChatResponse> script;
  private final List<ChatRequest> requests = Collections.synchronizedList(new ArrayList<>());

  private ScriptedLlmClient(Function<ChatRequest, ChatResponse> script) {
    this.script = script;
  }

  /**
   * Answers with {@code responses} in order, one per request.
   *
   * <p>A request past the end throws {@link IllegalStateException}: the script was too short.
   */
  public static ScriptedLlmClient replying(ChatResponse... responses) {
    List<ChatResponse> queue = List.of(responses);
    int[] next = {0};
    return new ScriptedLlmClient(
        request -> {
          synchronized (next) {
            if (next[0] >= queue.size()) {
              throw new IllegalStateException(
                  "scripted model has no answer for request " + (next[0] + 1) + "; it has " + queue.size());
            }
            return queue.get(next[0]++);
          }
        });
  }

  /** Answers each request with {@code script.apply(request)}; the function must be thread-safe. */
  public static ScriptedLlmClient answering(Function<ChatRequest, ChatResponse> script) {
    return new ScriptedLlmClient(Objects.requireNonNull(script, "script"));
  }

  @Override
  public ChatResponse chat(ChatRequest request) {
    requests.add(request);
    return Objects.requireNonNull(script.apply(request), "the script answered null");
  }

  /** Every request received so far, oldest first. */
  public List<ChatRequest> requests() {
    synchronized (requests) {
      return List.copyOf(requests);
    }
  }
}
