package dev.rcrt.agent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.agent.internal.openai.ChatCompletionsWire;
import dev.rcrt.core.RcrtJson;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
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
 * <p>Failures are {@link LlmException}s: a non-2xx status carries the status and the provider's
 * {@code error.message}; 429 and 5xx are marked retriable. The API key never appears in messages,
 * logs or {@link #toString()}.
 *
 * <p>Thread-safe. Holds no resources that need closing.
 */
public final class OpenAiCompatibleLlmClient implements LlmClient {
  private final URI endpoint;
  private final @Nullable String apiKey;
  private final Duration requestTimeout;
  private final HttpClient http;

  private OpenAiCompatibleLlmClient(Builder b) {
    String base = b.baseUrl.endsWith("/") ? b.baseUrl.substring(0, b.baseUrl.length() - 1) : b.baseUrl;
    this.endpoint = URI.create(base.endsWith("/chat/completions") ? base : base + "/chat/completions");
    this.apiKey = b.apiKey;
    this.requestTimeout = b.requestTimeout;
    this.http = HttpClient.newBuilder().connectTimeout(b.connectTimeout).build();
  }

  /**
   * Starts a builder.
   *
   * @param baseUrl the API base, such as {@code https://api.openai.com/v1}, {@code
   *     https://openrouter.ai/api/v1} or {@code http://localhost:11434/v1}; a URL that already
   *     ends in {@code /chat/completions} is used as it is
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
    HttpRequest.Builder http =
        HttpRequest.newBuilder(endpoint)
            .timeout(requestTimeout)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(RcrtJson.write(ChatCompletionsWire.requestBody(request))));
    if (apiKey != null) {
      http.header("Authorization", "Bearer " + apiKey);
    }
    HttpResponse<String> response = send(http.build());
    int status = response.statusCode();
    JsonNode body = parse(response.body(), status);
    if (status < 200 || status > 299) {
      String provider = body != null && body.has("error") ? ChatCompletionsWire.providerMessage(body.get("error")) : null;
      String detail = provider != null ? provider : excerpt(response.body());
      throw new LlmException(
          "llm_http_error",
          "model endpoint " + endpoint + " answered HTTP " + status + ": " + detail + advice(status),
          status,
          provider,
          status == 429 || status >= 500,
          null);
    }
    if (body == null) {
      throw new LlmException(
          "llm_bad_response",
          "model endpoint " + endpoint + " answered HTTP " + status + " with a body that is not JSON: "
              + excerpt(response.body()),
          status,
          null,
          false,
          null);
    }
    return ChatCompletionsWire.parseCompletion(body, endpoint.toString());
  }

  private HttpResponse<String> send(HttpRequest request) {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString());
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

  private static @Nullable JsonNode parse(String body, int status) {
    try {
      JsonNode node = RcrtJson.mapper().readTree(body);
      return node == null || node.isMissingNode() || !node.isObject() ? null : node;
    } catch (JsonProcessingException e) {
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

  private static String excerpt(String body) {
    String flat = body.replaceAll("\\s+", " ").trim();
    return flat.isEmpty() ? "(empty body)" : flat.length() <= 200 ? flat : flat.substring(0, 200) + "…";
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

    private Builder(String baseUrl) {
      this.baseUrl = Objects.requireNonNull(baseUrl, "baseUrl");
      URI.create(baseUrl);
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

    /** Time for the whole answer after sending; default 120 s. */
    public Builder requestTimeout(Duration timeout) {
      this.requestTimeout = positive(timeout);
      return this;
    }

    public OpenAiCompatibleLlmClient build() {
      return new OpenAiCompatibleLlmClient(this);
    }

    private static Duration positive(Duration d) {
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException("timeout must be positive: " + d);
      }
      return d;
    }
  }
}
