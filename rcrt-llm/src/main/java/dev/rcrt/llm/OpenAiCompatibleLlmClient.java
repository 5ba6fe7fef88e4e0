package dev.rcrt.llm;

import dev.rcrt.core.EmbeddingProvider;
import dev.rcrt.core.TimeSource;
import dev.rcrt.core.spi.SharedHttpClient;
import dev.rcrt.llm.internal.openai.Endpoint;
import dev.rcrt.llm.internal.openai.Exchange;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * An {@link LlmClient} for any OpenAI-compatible chat-completions endpoint (OpenAI, OpenRouter,
 * Azure OpenAI, Ollama, vLLM, LM Studio, …), on the JDK {@link HttpClient}.
 *
 * <p>It POSTs OpenAI chat-completions JSON to {@code <baseUrl>/chat/completions} with {@code
 * Authorization: Bearer <apiKey>} (when a key is set) plus the builder's headers and query
 * parameters, sends the request's {@link ChatOptions} and image parts, and reads native tool calls
 * and token usage: {@code content} may be null next to {@code tool_calls}, and each call's {@code
 * arguments} is a JSON string.
 *
 * <p>With a {@link StreamListener} ({@link #chat(ChatRequest, StreamListener)}) it asks for {@code stream: true} and reads
 * the server-sent events as they arrive, passing text to the listener and assembling tool-call
 * fragments by index (OpenAI chat-completions streaming; OpenRouter's keep-alive comments are
 * skipped). A server that answers a streamed request with one JSON body is read as well; the
 * listener then gets the whole text once.
 *
 * <p>Failures are {@link LlmException}s: a non-2xx status carries the status and the provider's
 * {@code error.message}. 429 and 5xx are retried (see {@link Builder#maxRetries(int)}) with bounded
 * exponential backoff that honours {@code Retry-After}; other 4xx are not. Interrupting the calling
 * thread abandons the request ({@code llm_cancelled}). The API key and header values never appear
 * in messages, logs or {@link #toString()}; nor does the query string.
 *
 * <p>Thread-safe. Holds no resources that need closing: the {@link HttpClient} is shared (see
 * {@link Builder#httpClient}).
 */
public final class OpenAiCompatibleLlmClient implements LlmClient {
  /** Secrets shorter than this are test placeholders: replacing them would garble every message. */
  private static final int MIN_SCRUBBED_SECRET = 8;

  private final Exchange exchange;
  private final URI endpoint;
  private final List<String> secrets;
  private final int maxRetries;
  private final Duration initialBackoff;
  private final Duration maxBackoff;
  private final TimeSource time;
  private final @Nullable String defaultModel;

  private OpenAiCompatibleLlmClient(Builder b, URI endpoint) {
    this.defaultModel = b.defaultModel;
    Map<String, String> headers = new LinkedHashMap<>(b.headers);
    if (b.apiKey != null) {
      headers.put("Authorization", "Bearer " + b.apiKey);
    }
    this.endpoint = endpoint;
    this.exchange =
        new Exchange(
            new Endpoint(endpoint, headers, b.http, b.requestTimeout, b.streamIdleTimeout, b.streamTimeout, b.maxResponseBytes, b.clock, b.time));
    List<String> scrub = new ArrayList<>();
    List<String> values = new ArrayList<>(headers.values());
    values.addAll(b.query.values());
    for (String value : values) {
      String secret = value.startsWith("Bearer ") ? value.substring(7) : value;
      if (secret.length() >= MIN_SCRUBBED_SECRET) {
        scrub.add(secret);
      }
    }
    this.secrets = List.copyOf(scrub);
    this.maxRetries = b.maxRetries;
    this.initialBackoff = b.initialBackoff;
    this.maxBackoff = b.maxBackoff;
    this.time = b.time;
  }

  @Override
  public java.util.Optional<String> defaultModel() {
    return java.util.Optional.ofNullable(defaultModel);
  }

  /** The API key and every header and query value of at least 8 characters, as sent ({@code Bearer } removed). */
  @Override
  public java.util.Set<String> secretValues() {
    return java.util.Set.copyOf(secrets);
  }

  /**
   * Starts a builder.
   *
   * @param baseUrl the API base, such as {@code https://api.openai.com/v1}, {@code
   *     https://openrouter.ai/api/v1} or {@code http://localhost:11434/v1}; {@code /chat/completions}
   *     is appended to its path unless the path already ends with it; a query string is kept;
   *     checked by {@link Builder#build()}
   */
  public static Builder builder(String baseUrl) {
    return new Builder(baseUrl);
  }

  /** The full chat-completions URL requests go to, query included. */
  public URI endpoint() {
    return endpoint;
  }

  @Override
  public ChatResponse chat(ChatRequest request) {
    return send(Objects.requireNonNull(request, "request"), null);
  }

  /** Asks for {@code stream: true} and reads the server-sent events as they arrive; see the class comment. */
  @Override
  public ChatResponse chat(ChatRequest request, StreamListener listener) {
    return send(Objects.requireNonNull(request, "request"), Objects.requireNonNull(listener, "listener"));
  }

  private ChatResponse send(ChatRequest request, @Nullable StreamListener listener) {
    return retrying(() -> exchange.attempt(request, listener));
  }

  /**
   * An {@link EmbeddingProvider} on this client's endpoint: {@code POST …/embeddings} (OpenAI's
   * embeddings API, which Ollama, vLLM and LM Studio serve too) beside {@code
   * …/chat/completions}, with this client's key, headers, HTTP client, time limits, size cap and
   * retries. Its failures are {@link dev.rcrt.core.EmbeddingException}s: {@code
   * embedding_unavailable} where the chat client's would be retriable (unreachable, timed out, 429,
   * 5xx), else {@code embedding_failed}; the key and header values never appear in them.
   *
   * @param model the embedding model, such as {@code text-embedding-3-small} or {@code
   *     nomic-embed-text}
   * @param dimensions the length of its vectors, sent as OpenAI's {@code dimensions}, so that a
   *     model that can shorten its vectors answers with this length ({@code text-embedding-3-small}
   *     gives 512 when asked, 1,536 by default); a model that answers another length fails with
   *     {@code embedding_failed}. An endpoint that refuses the parameter (OpenAI's {@code
   *     text-embedding-ada-002}, some local servers) fails with {@code embedding_failed} naming it:
   *     use {@link #embeddings(String, int, boolean)} with {@code false} there
   */
  public EmbeddingProvider embeddings(String model, int dimensions) {
    return embeddings(model, dimensions, true);
  }

  /**
   * {@link #embeddings(String, int)}, choosing whether {@code dimensions} is sent.
   *
   * @param sendDimensions true to ask the model for vectors of {@code dimensions} (OpenAI's {@code
   *     dimensions}: {@code text-embedding-3} models and later, matryoshka models elsewhere); false
   *     for a model that answers with its own length and refuses the parameter ({@code
   *     text-embedding-ada-002}, {@code nomic-embed-text} on some servers): the length is then only checked
   */
  public EmbeddingProvider embeddings(String model, int dimensions, boolean sendDimensions) {
    return new OpenAiEmbeddings(this, exchange, Endpoint.embeddings(endpoint), model, dimensions, sendDimensions);
  }

  /** Runs {@code attempt} until it answers, or fails in a way {@link Builder#maxRetries} does not retry. */
  <T> T retrying(java.util.function.Supplier<Exchange.Outcome<T>> attempt) {
    for (int n = 0; ; n++) {
      Exchange.Outcome<T> outcome = attempt.get();
      if (outcome.response() != null) {
        return outcome.response();
      }
      LlmException failure = scrubbed(Objects.requireNonNull(outcome.failure()));
      // only what maxRetries documents: 429 and 5xx; a stream that timed out or broke is never sent again
      boolean again = failure.isRetriable() && (failure.status() == 429 || failure.status() >= 500) && n < maxRetries;
      if (!again) {
        throw failure;
      }
      Duration wait = outcome.retryAfter() != null ? min(outcome.retryAfter(), maxBackoff) : backoff(n);
      try {
        time.sleep(wait);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new LlmException(LlmErrorCode.LLM_CANCELLED, "interrupted while waiting to retry: " + failure.getMessage(), 0, null, false, e);
      }
    }
  }

  /**
   * The failure with the API key and header values removed from its message and the provider's
   * message: a provider that echoes what it was sent (some do, in 401 bodies) must not get it
   * printed or logged.
   */
  private LlmException scrubbed(LlmException e) {
    String message = e.getMessage() == null ? "" : e.getMessage();
    String provider = e.providerMessage();
    String cleanMessage = message;
    String cleanProvider = provider;
    for (String secret : secrets) {
      cleanMessage = cleanMessage.replace(secret, "[secret]");
      cleanProvider = cleanProvider == null ? null : cleanProvider.replace(secret, "[secret]");
    }
    if (cleanMessage.equals(message) && Objects.equals(cleanProvider, provider)) {
      return e;
    }
    return new LlmException(e.code(), cleanMessage, e.status(), cleanProvider, e.isRetriable(), null);
  }

  /** {@code initialBackoff × 2^attempt}, at most {@code maxBackoff}. */
  private Duration backoff(int attempt) {
    return min(initialBackoff.multipliedBy(1L << Math.min(attempt, 20)), maxBackoff);
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  @Override
  public String toString() {
    return "OpenAiCompatibleLlmClient[" + exchange.where() + (secrets.isEmpty() ? ", no key" : ", key set") + "]";
  }

  /** Builder for {@link OpenAiCompatibleLlmClient}. Not thread-safe; {@link #build()} copies. */
  public static final class Builder {
    private final String baseUrl;
    private @Nullable String apiKey;
    private @Nullable String defaultModel;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private final Map<String, String> query = new LinkedHashMap<>();
    private HttpClient http = SharedHttpClient.get();
    private Duration requestTimeout = Duration.ofSeconds(120);
    private Duration streamIdleTimeout = Duration.ofSeconds(60);
    private Duration streamTimeout = Duration.ofMinutes(10);
    private long maxResponseBytes = 16L * 1024 * 1024;
    private int maxRetries = 2;
    private Duration initialBackoff = Duration.ofMillis(500);
    private Duration maxBackoff = Duration.ofSeconds(20);
    private TimeSource time = TimeSource.system();
    private Clock clock = Clock.systemUTC();

    private Builder(String baseUrl) {
      this.baseUrl = Objects.requireNonNull(baseUrl, "baseUrl");
    }

    /** The key sent as {@code Authorization: Bearer}; null or blank sends no header (Ollama, or Azure's {@code api-key}). */
    public Builder apiKey(@Nullable String apiKey) {
      this.apiKey = apiKey == null || apiKey.isBlank() ? null : apiKey;
      return this;
    }

    /**
     * The model asked when an agent names none ({@link LlmClient#defaultModel()}); default none.
     */
    public Builder defaultModel(@Nullable String model) {
      this.defaultModel = model == null || model.isBlank() ? null : model;
      return this;
    }

    /**
     * A header sent with every request, such as Azure's {@code api-key} or OpenRouter's {@code
     * HTTP-Referer}; the same name again replaces it. Values are treated as secrets: never printed.
     *
     * @throws IllegalArgumentException for {@code Content-Type}, {@code Accept} or a name the JDK
     *     client does not allow ({@code Host}, {@code Content-Length}, …)
     */
    public Builder header(String name, String value) {
      Objects.requireNonNull(value, "value");
      String lower = name.toLowerCase(java.util.Locale.ROOT);
      if (List.of("content-type", "accept", "host", "content-length", "connection", "upgrade", "expect").contains(lower)) {
        throw new IllegalArgumentException("header '" + name + "' is set by the client and cannot be replaced");
      }
      headers.put(name, value);
      return this;
    }

    /**
     * A query parameter added to the endpoint URL, such as Azure's {@code api-version}; URL-encoded
     * here. Treated as a secret like header values (some providers take keys as {@code ?key=}).
     */
    public Builder queryParameter(String name, String value) {
      query.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /**
     * The JDK client to send with: its proxy, TLS context ({@code SSLContext}), connect timeout,
     * HTTP version and executor apply. Default: one client shared by every model client and tool
     * runner in the JVM (connect timeout 10 s, no redirects), never one per client. The model
     * client does not close it.
     */
    public Builder httpClient(HttpClient http) {
      this.http = Objects.requireNonNull(http, "http");
      return this;
    }

    /**
     * Time for a whole non-streamed answer after sending, body included (a body that stalls or
     * trickles is cut off at this point), and for the headers of a streamed one; default 120 s.
     */
    public Builder requestTimeout(Duration timeout) {
      this.requestTimeout = positive(timeout);
      return this;
    }

    /**
     * For streamed answers: the longest gap between two events ({@code : keep-alive} comments do
     * not count, so a server that only sends those times out), and the longest the whole stream may
     * take; defaults 60 s and 10 min.
     */
    public Builder streamTimeouts(Duration idle, Duration total) {
      this.streamIdleTimeout = positive(idle);
      this.streamTimeout = positive(total);
      return this;
    }

    /**
     * The most bytes an answer may have, streamed or not (one line of it included); default 16 MiB.
     * Past it the response is closed and the call fails with {@code llm_bad_response}, never
     * buffering more.
     */
    public Builder maxResponseBytes(long bytes) {
      if (bytes < 1) {
        throw new IllegalArgumentException("maxResponseBytes < 1: " + bytes);
      }
      this.maxResponseBytes = bytes;
      return this;
    }

    /**
     * How often a request that failed with 429 or a 5xx status is sent again; default 2, 0 for
     * never. Other 4xx statuses, timeouts, and a stream that already produced text are never
     * retried.
     */
    public Builder maxRetries(int maxRetries) {
      if (maxRetries < 0) {
        throw new IllegalArgumentException("maxRetries < 0: " + maxRetries);
      }
      this.maxRetries = maxRetries;
      return this;
    }

    /**
     * The wait before retry {@code n} (from 0) is the server's {@code Retry-After} when it sends
     * one, else {@code initial × 2^n}; either way at most {@code max}. Defaults 500 ms and 20 s.
     */
    public Builder retryBackoff(Duration initial, Duration max) {
      this.initialBackoff = positive(initial);
      this.maxBackoff = positive(max);
      return this;
    }

    /**
     * What the waits between retries are taken on; default {@link TimeSource#system()}. A test
     * passes a {@code dev.rcrt.testing.TestClock} so that retries never sleep. The request's own
     * connect and header timeouts are the JDK {@code HttpClient}'s and keep real time; a streamed
     * answer's idle gap and whole-stream limit, and a body's deadline, are measured on this source,
     * so a test moves a stream past its idle limit without waiting.
     */
    public Builder timeSource(TimeSource time) {
      this.time = Objects.requireNonNull(time, "time");
      return this;
    }

    /** The wall clock a {@code Retry-After} HTTP date is compared with; default {@link Clock#systemUTC()}. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * The client; later changes to this builder do not affect it.
     *
     * @throws LlmException {@code llm_config_invalid} if the base URL is not an absolute {@code
     *     http} or {@code https} URL with a host
     */
    public OpenAiCompatibleLlmClient build() {
      URI uri;
      try {
        uri = new URI(baseUrl);
      } catch (URISyntaxException e) {
        throw invalidUrl("is not a URL: " + e.getReason());
      }
      if (!"http".equalsIgnoreCase(uri.getScheme()) && !"https".equalsIgnoreCase(uri.getScheme())) {
        throw invalidUrl("has no http:// or https:// scheme");
      }
      if (uri.getHost() == null) {
        throw invalidUrl("has no host");
      }
      return new OpenAiCompatibleLlmClient(this, Endpoint.chatCompletions(uri, query));
    }

    private LlmException invalidUrl(String why) {
      return new LlmException(
          LlmErrorCode.LLM_CONFIG_INVALID, "base URL '" + baseUrl + "' " + why + "; write it like https://api.openai.com/v1 or http://localhost:11434/v1",
          0, null, false, null);
    }

    private static Duration positive(Duration d) {
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException("timeout must be positive: " + d);
      }
      return d;
    }
  }
}
