package dev.rcrt.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.agent.internal.openai.ChatCompletionsWire;
import dev.rcrt.agent.internal.openai.SseReader;
import dev.rcrt.agent.internal.openai.StreamAssembler;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.TimeSource;
import dev.rcrt.core.ValidationException;
import dev.rcrt.core.internal.BoundedLines;
import dev.rcrt.core.internal.Excerpts;
import dev.rcrt.core.internal.MediaTypes;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * An {@link LlmClient} for any OpenAI-compatible chat-completions endpoint (OpenAI, OpenRouter,
 * Ollama, vLLM, LM Studio, …), on the JDK {@link HttpClient}.
 *
 * <p>It POSTs OpenAI chat-completions JSON to {@code <baseUrl>/chat/completions} with {@code
 * Authorization: Bearer <apiKey>} (when a key is set) and reads native tool calls: {@code content}
 * may be null next to {@code tool_calls}, and each call's {@code arguments} is a JSON string.
 *
 * <p>With a {@link ChatRequest#stream() stream listener} it asks for {@code stream: true} and reads
 * the server-sent events as they arrive, passing text to the listener and assembling tool-call
 * fragments by index (OpenAI chat-completions streaming; OpenRouter's keep-alive comments are
 * skipped).
 *
 * <p>Failures are {@link LlmException}s: a non-2xx status carries the status and the provider's
 * {@code error.message}. 429 and 5xx are retried (see {@link Builder#maxRetries(int)}) with
 * bounded exponential backoff that honours {@code Retry-After}; other 4xx are not. The API key never appears in messages,
 * logs or {@link #toString()}.
 *
 * <p>Thread-safe. Holds no resources that need closing.
 */
public final class OpenAiCompatibleLlmClient implements LlmClient {
  private final URI endpoint;
  private final @Nullable String apiKey;
  private final Duration requestTimeout;
  private final Duration streamIdleTimeout;
  private final Duration streamTimeout;
  private final long maxResponseBytes;
  private final HttpClient http;
  private final int maxRetries;
  private final Duration initialBackoff;
  private final Duration maxBackoff;
  private final TimeSource time;
  private final Clock clock;

  private OpenAiCompatibleLlmClient(Builder b) {
    String base = b.baseUrl.endsWith("/") ? b.baseUrl.substring(0, b.baseUrl.length() - 1) : b.baseUrl;
    this.endpoint = URI.create(base.endsWith("/chat/completions") ? base : base + "/chat/completions");
    this.apiKey = b.apiKey;
    this.requestTimeout = b.requestTimeout;
    this.streamIdleTimeout = b.streamIdleTimeout;
    this.streamTimeout = b.streamTimeout;
    this.maxResponseBytes = b.maxResponseBytes;
    this.http = HttpClient.newBuilder().connectTimeout(b.connectTimeout).build();
    this.maxRetries = b.maxRetries;
    this.initialBackoff = b.initialBackoff;
    this.maxBackoff = b.maxBackoff;
    this.time = b.time;
    this.clock = b.clock;
  }

  /**
   * Starts a builder.
   *
   * @param baseUrl the API base, such as {@code https://api.openai.com/v1}, {@code
   *     https://openrouter.ai/api/v1} or {@code http://localhost:11434/v1}; a URL that already
   *     ends in {@code /chat/completions} is used as it is; checked by {@link Builder#build()}
   */
  public static Builder builder(String baseUrl) {
    return new Builder(baseUrl);
  }

  /** The full chat-completions URL requests go to. */
  public URI endpoint() {
    return endpoint;
  }

  @Override
  public ChatResponse chat(ChatRequest request) {
    for (int attempt = 0; ; attempt++) {
      Outcome outcome = attempt(request);
      if (outcome.response() != null) {
        return outcome.response();
      }
      LlmException failure = withoutKey(outcome.failure());
      boolean again = failure.isRetriable() && failure.status() != 0 && attempt < maxRetries;
      if (!again) {
        throw failure;
      }
      Duration wait = outcome.retryAfter() != null ? min(outcome.retryAfter(), maxBackoff) : backoff(attempt);
      try {
        time.sleep(wait);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw failure;
      }
    }
  }

  /**
   * The failure with the API key removed from its message and the provider's message: a provider
   * that echoes the key it was sent (some do, in 401 bodies) must not get it printed or logged.
   */
  private LlmException withoutKey(LlmException e) {
    if (apiKey == null || apiKey.length() < MIN_SCRUBBED_KEY) {
      return e;
    }
    String message = e.getMessage() == null ? "" : e.getMessage();
    String provider = e.providerMessage();
    boolean leaks = message.contains(apiKey) || (provider != null && provider.contains(apiKey));
    if (!leaks) {
      return e;
    }
    return new LlmException(
        e.code(), message.replace(apiKey, "[secret]"), e.status(), provider == null ? null : provider.replace(apiKey, "[secret]"),
        e.isRetriable(), null);
  }

  /** Keys shorter than this are test placeholders, not secrets: replacing them would garble every message. */
  private static final int MIN_SCRUBBED_KEY = 8;

  /** One attempt's result: a response, or a failure with the server's Retry-After if it sent one. */
  private record Outcome(@Nullable ChatResponse response, @Nullable LlmException failure, @Nullable Duration retryAfter) {}

  private Outcome attempt(ChatRequest request) {
    boolean streaming = request.stream() != null;
    ObjectNode body = ChatCompletionsWire.requestBody(request);
    if (streaming) {
      body.put("stream", true);
      body.putObject("stream_options").put("include_usage", true);
    }
    HttpRequest.Builder http =
        HttpRequest.newBuilder(endpoint)
            .timeout(requestTimeout)
            .header("Content-Type", "application/json")
            .header("Accept", streaming ? "text/event-stream" : "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(RcrtJson.write(body)));
    if (apiKey != null) {
      http.header("Authorization", "Bearer " + apiKey);
    }
    long started = System.nanoTime();
    HttpResponse<InputStream> response;
    try {
      response = send(http.build());
    } catch (LlmException e) {
      return new Outcome(null, e, null);
    }
    try (BoundedLines lines = new BoundedLines(response.body(), maxResponseBytes)) {
      return read(request, response, lines, started);
    }
  }

  /** Reads the answer to one attempt, within the time limits and the size cap. */
  private Outcome read(ChatRequest request, HttpResponse<InputStream> response, BoundedLines lines, long started) {
    boolean streaming = request.stream() != null;
    long deadline = started + requestTimeout.toNanos();
    int status = response.statusCode();
    if (status < 200 || status > 299) {
      String text;
      try {
        text = joined(lines, deadline);
      } catch (LlmException e) {
        return new Outcome(null, e, null);
      }
      JsonNode json = parse(text);
      String provider = json != null && json.has("error") ? ChatCompletionsWire.providerMessage(json.get("error")) : null;
      String detail = provider != null ? provider : Excerpts.of(text);
      LlmException e =
          new LlmException(
              "llm_http_error",
              "model endpoint " + endpoint + " answered HTTP " + status + ": " + detail + advice(status),
              status, provider, status == 429 || status >= 500, null);
      return new Outcome(null, e, retryAfter(response));
    }
    String type = response.headers().firstValue("Content-Type").orElse("").toLowerCase(java.util.Locale.ROOT);
    try {
      if (streaming && type.startsWith("text/event-stream")) {
        StreamAssembler assembler = new StreamAssembler(endpoint.toString(), request.stream());
        try {
          SseReader.read(lines, streamIdleTimeout, started + streamTimeout.toNanos(), endpoint.toString(), assembler::accept);
          if (!assembler.finished()) {
            throw new LlmException(
                "llm_bad_response",
                "the stream from " + endpoint + " ended without [DONE] or a finish_reason, so the answer may be cut off",
                status, null, true, null);
          }
        } catch (LlmException e) {
          boolean retriable = e.isRetriable() && !assembler.emitted();
          return new Outcome(null, new LlmException(e.code(), e.getMessage(), status, e.providerMessage(), retriable, null), null);
        }
        return new Outcome(assembler.response(), null, null);
      }
      if (!MediaTypes.isJson(type)) {
        throw new LlmException(
            "llm_bad_response",
            "model endpoint " + endpoint + " answered Content-Type '" + type + "', expected application/json"
                + (streaming ? " or text/event-stream" : ""),
            status, null, false, null);
      }
      String text = joined(lines, deadline);
      JsonNode json = parse(text);
      if (json == null) {
        throw new LlmException(
            "llm_bad_response",
            "model endpoint " + endpoint + " answered HTTP " + status + " with a body that is not JSON: " + Excerpts.of(text),
            status, null, false, null);
      }
      ChatResponse completion = ChatCompletionsWire.parseCompletion(json, endpoint.toString());
      if (streaming && completion.message().content() != null && !completion.message().content().isEmpty()) {
        request.stream().onToken(completion.message().content());
      }
      return new Outcome(completion, null, null);
    } catch (java.io.UncheckedIOException e) {
      return new Outcome(null, new LlmException("llm_unreachable", "the stream from " + endpoint + " broke: " + e.getCause(), 0, null, false, e), null);
    } catch (LlmException e) {
      return new Outcome(null, e, null);
    }
  }

  private HttpResponse<InputStream> send(HttpRequest request) {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofInputStream());
    } catch (HttpTimeoutException e) {
      throw new LlmException(
          "llm_timeout",
          "model endpoint " + endpoint + " did not answer within " + requestTimeout.toMillis() + " ms",
          0, null, true, e);
    } catch (ConnectException e) {
      throw new LlmException(
          "llm_unreachable",
          "cannot connect to model endpoint " + endpoint + ": check the base URL and that the server is running",
          0, null, true, e);
    } catch (IOException e) {
      throw new LlmException(
          "llm_unreachable", "request to model endpoint " + endpoint + " failed: " + e, 0, null, true, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LlmException(
          "llm_unreachable", "interrupted while waiting for " + endpoint, 0, null, false, e);
    }
  }

  /** {@code Retry-After} as delta-seconds or an HTTP date, or null. */
  private @Nullable Duration retryAfter(HttpResponse<?> response) {
    String value = response.headers().firstValue("Retry-After").orElse(null);
    if (value == null) {
      return null;
    }
    try {
      return Duration.ofSeconds(Math.max(0, Long.parseLong(value.trim())));
    } catch (NumberFormatException notSeconds) {
      try {
        Instant at = ZonedDateTime.parse(value.trim(), DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
        Duration d = Duration.between(clock.instant(), at);
        return d.isNegative() ? Duration.ZERO : d;
      } catch (DateTimeParseException unreadable) {
        return null;
      }
    }
  }

  /** {@code initialBackoff × 2^attempt}, at most {@code maxBackoff}. */
  private Duration backoff(int attempt) {
    return min(initialBackoff.multipliedBy(1L << Math.min(attempt, 20)), maxBackoff);
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  /** The whole body as text, lines joined, within the deadline ({@link System#nanoTime()} based). */
  private String joined(BoundedLines lines, long deadlineNanos) {
    StringBuilder text = new StringBuilder();
    try {
      for (String line; (line = lines.next(Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime())))) != null; ) {
        if (text.length() > 0) {
          text.append('\n');
        }
        text.append(line);
      }
      return text.toString();
    } catch (BoundedLines.Failure f) {
      throw switch (f.kind()) {
        case WAITED_TOO_LONG -> new LlmException(
            "llm_timeout", "model endpoint " + endpoint + " did not send its whole answer within " + requestTimeout.toMillis() + " ms",
            0, null, true, null);
        case TOO_LARGE -> new LlmException("llm_bad_response", "model endpoint " + endpoint + ": " + f.getMessage(), 0, null, false, null);
        case BROKEN -> new LlmException("llm_unreachable", "model endpoint " + endpoint + ": " + f.getMessage(), 0, null, true, null);
      };
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LlmException("llm_unreachable", "interrupted while reading from " + endpoint, 0, null, false, e);
    }
  }

  private static @Nullable JsonNode parse(String body) {
    try {
      JsonNode node = RcrtJson.parse(body);
      return node.isObject() ? node : null;
    } catch (ValidationException e) {
      return null;
    }
  }

  private static String advice(int status) {
    return switch (status) {
      case 401, 403 -> " (check the API key)";
      case 404 -> " (check the base URL and the model name)";
      case 429 -> " (rate limited; retry later)";
      default -> "";
    };
  }

  @Override
  public String toString() {
    return "OpenAiCompatibleLlmClient[" + endpoint + (apiKey != null ? ", key set" : ", no key") + "]";
  }

  /** Builder for {@link OpenAiCompatibleLlmClient}. Not thread-safe. */
  public static final class Builder {
    private final String baseUrl;
    private @Nullable String apiKey;
    private Duration connectTimeout = Duration.ofSeconds(10);
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

    /** The key sent as {@code Authorization: Bearer}; null or blank sends no header (Ollama). */
    public Builder apiKey(@Nullable String apiKey) {
      this.apiKey = apiKey == null || apiKey.isBlank() ? null : apiKey;
      return this;
    }

    /** Time to establish the connection; default 10 s. */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = positive(timeout);
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
     * timeouts are the JDK {@code HttpClient}'s and keep real time.
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
     * The client.
     *
     * @throws LlmException {@code llm_config_invalid} if the base URL is not an absolute {@code
     *     http} or {@code https} URL with a host
     */
    public OpenAiCompatibleLlmClient build() {
      URI uri;
      try {
        uri = new URI(baseUrl);
      } catch (java.net.URISyntaxException e) {
        throw invalidUrl("is not a URL: " + e.getReason());
      }
      if (!"http".equalsIgnoreCase(uri.getScheme()) && !"https".equalsIgnoreCase(uri.getScheme())) {
        throw invalidUrl("has no http:// or https:// scheme");
      }
      if (uri.getHost() == null) {
        throw invalidUrl("has no host");
      }
      return new OpenAiCompatibleLlmClient(this);
    }

    private LlmException invalidUrl(String why) {
      return new LlmException(
          "llm_config_invalid", "base URL '" + baseUrl + "' " + why + "; write it like https://api.openai.com/v1 or http://localhost:11434/v1",
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
