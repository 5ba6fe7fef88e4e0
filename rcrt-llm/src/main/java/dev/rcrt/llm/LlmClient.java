package dev.rcrt.llm;

/**
 * A chat model. Hosts implement this to plug in any provider; {@link OpenAiCompatibleLlmClient}
 * speaks the OpenAI chat-completions protocol (OpenAI, OpenRouter, Ollama, vLLM, …).
 *
 * <p>Implementations must be thread-safe: an executor may call from several threads at once.
 */
public interface LlmClient {

  /**
   * Sends one request and returns the model's answer.
   *
   * @return the assistant message; its tool calls carry the function names offered in {@code
   *     request.tools()}
   * @throws LlmException when the provider cannot be reached, refuses the request, answers with an
   *     error, or answers with something that is not a chat completion
   */
  ChatResponse chat(ChatRequest request);

  /**
   * Sends one request asking for the answer as a stream, passes its text to {@code listener} as it
   * arrives (OpenAI chat-completions streaming, {@code stream: true}; tool calls are not streamed
   * text) and returns the whole answer. The default, for a client that cannot stream, is {@link
   * #chat(ChatRequest)} with the whole text passed to the listener once.
   *
   * @throws LlmException as {@link #chat(ChatRequest)}; a stream that already passed text is never
   *     retried
   */
  default ChatResponse chat(ChatRequest request, StreamListener listener) {
    return chat(request).streamedTo(listener);
  }

  /**
   * The model to ask when the agent names none, neither directly nor through an RCRT {@code
   * llm_config_id} (RCRT's agents leave the model to the client then). The default: none, and such
   * an agent fails with a message that says what to set.
   */
  default java.util.Optional<String> defaultModel() {
    return java.util.Optional.empty();
  }

  /**
   * The secret values this client sends to its provider (its API key, secret header and query
   * values), as sent. A model can copy them into what it answers (a hostile endpoint knows the key
   * it was sent), so the SDK treats them as secrets: an {@code AgentExecutor} adds them to its
   * runner's known secrets, scrubbed from every recorded tool request, response and error, and
   * {@code RcrtTelemetry} keeps them off spans. Default: none, for a client that holds no secret
   * or keeps it elsewhere; a default method so that existing clients keep compiling.
   */
  default java.util.Set<String> secretValues() {
    return java.util.Set.of();
  }
}
