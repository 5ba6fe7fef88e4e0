package dev.rcrt.langchain4j;

import dev.langchain4j.exception.HttpException;
import dev.langchain4j.exception.RetriableException;
import dev.langchain4j.exception.TimeoutException;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.rcrt.langchain4j.internal.Messages;
import dev.rcrt.llm.ChatRequest;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.llm.LlmErrorCode;
import dev.rcrt.llm.LlmException;
import dev.rcrt.llm.StreamListener;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ThreadFactory;
import org.jspecify.annotations.Nullable;

/**
 * An {@link LlmClient} over any LangChain4j {@link ChatModel} (and, for streamed requests, its
 * {@link StreamingChatModel}), so every provider LangChain4j has (Anthropic, Gemini, Bedrock,
 * Mistral, native Ollama, …) runs the SDK's agents.
 *
 * <p>Requests map to LangChain4j's {@code ChatRequest}: messages by role, images, tool calls and
 * results, the OpenAI {@code tools} as {@code ToolSpecification}s, the model name, temperature,
 * max tokens, stop sequences, tool choice and JSON output. Answers map back with their tool calls,
 * usage, finish reason and model. A streamed request with a streaming model gets the text as it
 * arrives; without one, the whole text at once. Failures are {@link LlmException}s: a LangChain4j
 * {@code HttpException} is {@code llm_http_error} with its status, a {@code TimeoutException}
 * {@code llm_timeout}, anything else {@code llm_provider_error} (retriable when LangChain4j says
 * so). Calls run on a daemon thread the caller waits for, so interrupting the caller ends the wait
 * at once with {@code llm_cancelled} and its interrupt kept, whatever the provider's client does.
 *
 * <p>Thread-safe as the models are (LangChain4j's are). The models stay the caller's.
 */
public final class LangChain4jLlmClient implements LlmClient {
  private final ChatModel model;
  private final @Nullable StreamingChatModel streaming;
  private final @Nullable String defaultModel;
  private final ThreadFactory threads;

  private LangChain4jLlmClient(
      ChatModel model, @Nullable StreamingChatModel streaming, @Nullable String defaultModel, ThreadFactory threads) {
    this.model = Objects.requireNonNull(model, "model");
    this.streaming = streaming;
    this.defaultModel = defaultModel;
    this.threads = threads;
  }

  /** A client over {@code model}; streamed requests get the whole text at once. */
  public static LangChain4jLlmClient of(ChatModel model) {
    return new LangChain4jLlmClient(model, null, null, DAEMON);
  }

  /** A client that streams through {@code streaming} and answers other requests through {@code model}. */
  public static LangChain4jLlmClient of(ChatModel model, StreamingChatModel streaming) {
    return new LangChain4jLlmClient(model, Objects.requireNonNull(streaming, "streaming"), null, DAEMON);
  }

  /** This client with {@code name} as the model asked when an agent names none ({@link #defaultModel()}). */
  public LangChain4jLlmClient withDefaultModel(String name) {
    return new LangChain4jLlmClient(model, streaming, Objects.requireNonNull(name, "name"), threads);
  }

  /** The default of {@link #withThreadFactory}: a daemon thread per blocking call, named {@code rcrt-langchain4j}. */
  private static final ThreadFactory DAEMON = r -> {
    Thread t = new Thread(r, "rcrt-langchain4j");
    t.setDaemon(true);
    return t;
  };

  /**
   * This client with {@code factory} making the thread each blocking {@code ChatModel} call runs
   * on (so that an interrupted caller stops waiting at once, with {@code llm_cancelled}, while the
   * call is interrupted): one thread per call, ended with it; nothing is pooled, so there is
   * nothing to close. Default: a daemon platform thread; on Java 21 and newer {@code
   * Thread.ofVirtual().factory()} fits.
   */
  public LangChain4jLlmClient withThreadFactory(ThreadFactory factory) {
    return new LangChain4jLlmClient(model, streaming, defaultModel, Objects.requireNonNull(factory, "factory"));
  }

  @Override
  public Optional<String> defaultModel() {
    return Optional.ofNullable(defaultModel);
  }

  @Override
  public ChatResponse chat(ChatRequest request) {
    dev.langchain4j.model.chat.request.ChatRequest converted = converted(request);
    FutureTask<dev.langchain4j.model.chat.response.ChatResponse> call = new FutureTask<>(() -> model.chat(converted));
    threads.newThread(call).start();
    return Messages.fromLangChain4j(await(call, request));
  }

  /**
   * Through the {@code StreamingChatModel} when this client has one, its partial responses passed
   * to {@code listener}; else {@link #chat(ChatRequest)} with the whole text passed once.
   */
  @Override
  public ChatResponse chat(ChatRequest request, StreamListener listener) {
    StreamingChatModel streams = streaming;
    if (streams == null) {
      return chat(request).streamedTo(listener);
    }
    dev.langchain4j.model.chat.request.ChatRequest converted = converted(request);
    CompletableFuture<dev.langchain4j.model.chat.response.ChatResponse> done = new CompletableFuture<>();
    streams.chat(converted, new StreamingChatResponseHandler() {
      @Override
      public void onPartialResponse(String partial) {
        if (partial != null && !partial.isEmpty()) {
          listener.onToken(partial);
        }
      }

      @Override
      public void onCompleteResponse(dev.langchain4j.model.chat.response.ChatResponse response) {
        done.complete(response);
      }

      @Override
      public void onError(Throwable error) {
        done.completeExceptionally(error);
      }
    });
    return Messages.fromLangChain4j(await(done, request));
  }

  private static dev.langchain4j.model.chat.request.ChatRequest converted(ChatRequest request) {
    try {
      return Messages.toLangChain4j(request);
    } catch (RuntimeException e) {
      throw new LlmException(LlmErrorCode.LLM_PROVIDER_ERROR, "the request cannot be given to LangChain4j: " + e.getMessage(), 0, null, false, e);
    }
  }

  private static dev.langchain4j.model.chat.response.ChatResponse await(Future<dev.langchain4j.model.chat.response.ChatResponse> answer, ChatRequest request) {
    try {
      return answer.get();
    } catch (InterruptedException e) {
      answer.cancel(true);
      Thread.currentThread().interrupt();
      throw new LlmException(LlmErrorCode.LLM_CANCELLED, "the call to model '" + request.model() + "' was cancelled: the calling thread was interrupted", 0, null, false, e);
    } catch (ExecutionException e) {
      throw failure(e.getCause() == null ? e : e.getCause(), request);
    }
  }

  private static LlmException failure(Throwable e, ChatRequest request) {
    String where = "model '" + request.model() + "' (LangChain4j " + e.getClass().getSimpleName() + ")";
    if (e instanceof HttpException h) {
      int status = h.statusCode();
      return new LlmException(LlmErrorCode.LLM_HTTP_ERROR, where + " answered HTTP " + status + ": " + h.getMessage(), status, h.getMessage(),
          status == 429 || status >= 500, e);
    }
    if (e instanceof TimeoutException) {
      return new LlmException(LlmErrorCode.LLM_TIMEOUT, where + " did not answer in time: " + e.getMessage(), 0, null, true, e);
    }
    return new LlmException(LlmErrorCode.LLM_PROVIDER_ERROR, where + " failed: " + e.getMessage(), 0, e.getMessage(), e instanceof RetriableException, e);
  }
}
