package dev.rcrt.llm.internal.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import dev.rcrt.core.spi.BoundedLines;
import dev.rcrt.core.spi.Excerpts;
import dev.rcrt.core.spi.MediaTypes;
import dev.rcrt.llm.ChatRequest;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.LlmErrorCode;
import dev.rcrt.llm.LlmException;
import dev.rcrt.llm.StreamListener;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * One HTTP exchange with a chat-completions endpoint: the request sent, the answer read (streamed
 * or whole) within the endpoint's time limits and size cap. Retrying is the caller's business;
 * this only says whether the failure may be retried and what {@code Retry-After} asked for.
 */
public final class Exchange {
  private final Endpoint endpoint;
  private final String where;

  /** @param endpoint the settings every exchange uses */
  public Exchange(Endpoint endpoint) {
    this.endpoint = endpoint;
    this.where = endpoint.printable();
  }

  /** The endpoint's URL without its query, as messages name it. */
  public String where() {
    return where;
  }

  /** One attempt's result: a response, or a failure with the server's Retry-After if it sent one. */
  public record Outcome<T>(@Nullable T response, @Nullable LlmException failure, @Nullable Duration retryAfter) {
    static <T> Outcome<T> failed(LlmException e) {
      return new Outcome<>(null, e, null);
    }
  }

  /** Sends {@code request} once and reads the answer; never throws {@link LlmException}. */
  public Outcome<ChatResponse> attempt(ChatRequest request, @Nullable StreamListener listener) {
    boolean streaming = listener != null;
    ObjectNode body = ChatCompletionsWire.requestBody(request);
    if (streaming) {
      body.put("stream", true);
      body.putObject("stream_options").put("include_usage", true);
    }
    HttpRequest.Builder http =
        HttpRequest.newBuilder(endpoint.uri())
            .timeout(endpoint.requestTimeout())
            .header("Content-Type", "application/json")
            .header("Accept", streaming ? "text/event-stream" : "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(RcrtJson.write(body)));
    endpoint.headers().forEach(http::setHeader);
    long started = endpoint.time().nanoTime();
    HttpResponse<InputStream> response;
    try {
      response = send(http.build());
    } catch (LlmException e) {
      return Outcome.failed(e);
    }
    try (BoundedLines lines = new BoundedLines(response.body(), endpoint.maxResponseBytes())) {
      int status = response.statusCode();
      if (status < 200 || status > 299) {
        return refused(response, lines, started);
      }
      return read(listener, response, lines, started);
    } catch (UncheckedIOException e) {
      return Outcome.failed(new LlmException(LlmErrorCode.LLM_UNREACHABLE, "the stream from " + where + " broke: " + e.getCause(), 0, null, false, e));
    } catch (LlmException e) {
      return Outcome.failed(e);
    }
  }

  /**
   * Sends {@code body} as JSON to {@code uri} once, with the endpoint's headers, timeout and size
   * cap, and reads a JSON object back; never throws {@link LlmException}.
   */
  public Outcome<JsonNode> post(java.net.URI uri, ObjectNode body) {
    HttpRequest.Builder http =
        HttpRequest.newBuilder(uri)
            .timeout(endpoint.requestTimeout())
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(RcrtJson.write(body)));
    endpoint.headers().forEach(http::setHeader);
    long started = endpoint.time().nanoTime();
    try {
      HttpResponse<InputStream> response = send(http.build());
      try (BoundedLines lines = new BoundedLines(response.body(), endpoint.maxResponseBytes())) {
        int status = response.statusCode();
        if (status < 200 || status > 299) {
          return refused(response, lines, started);
        }
        String text = joined(lines, started + endpoint.requestTimeout().toNanos());
        JsonNode json = parse(text);
        if (json == null) {
          return Outcome.failed(new LlmException(
              LlmErrorCode.LLM_BAD_RESPONSE, "endpoint " + uri.getScheme() + "://" + uri.getRawAuthority() + uri.getRawPath()
                  + " answered HTTP " + status + " with a body that is not a JSON object: " + Excerpts.of(text),
              status, null, false, null));
        }
        return new Outcome<>(json, null, null);
      }
    } catch (UncheckedIOException e) {
      return Outcome.failed(new LlmException(LlmErrorCode.LLM_UNREACHABLE, "the answer from " + where + " broke: " + e.getCause(), 0, null, true, e));
    } catch (LlmException e) {
      return Outcome.failed(e);
    }
  }

  /** A non-2xx answer: the provider's {@code error.message} when it sent one, retriable for 429 and 5xx. */
  private <T> Outcome<T> refused(HttpResponse<InputStream> response, BoundedLines lines, long started) {
    int status = response.statusCode();
    String text = joined(lines, started + endpoint.requestTimeout().toNanos());
    JsonNode json = parse(text);
    String provider = json != null && json.has("error") ? ChatCompletionsWire.providerMessage(json.get("error")) : null;
    String detail = provider != null ? provider : Excerpts.of(text);
    LlmException e =
        new LlmException(
            LlmErrorCode.LLM_HTTP_ERROR, "model endpoint " + where + " answered HTTP " + status + ": " + detail + advice(status),
            status, provider, status == 429 || status >= 500, null);
    return new Outcome<>(null, e, retryAfter(response));
  }

  private Outcome<ChatResponse> read(@Nullable StreamListener listener, HttpResponse<InputStream> response, BoundedLines lines, long started) {
    boolean streaming = listener != null;
    int status = response.statusCode();
    String type = response.headers().firstValue("Content-Type").orElse("").toLowerCase(Locale.ROOT);
    if (listener != null && type.startsWith("text/event-stream")) {
      return stream(listener, status, lines, started);
    }
    if (!MediaTypes.isJson(type)) {
      throw new LlmException(
          LlmErrorCode.LLM_BAD_RESPONSE,
          "model endpoint " + where + " answered Content-Type '" + type + "', expected application/json"
              + (streaming ? " or text/event-stream" : ""),
          status, null, false, null);
    }
    String text = joined(lines, started + endpoint.requestTimeout().toNanos());
    JsonNode json = parse(text);
    if (json == null) {
      throw new LlmException(
          LlmErrorCode.LLM_BAD_RESPONSE,
          "model endpoint " + where + " answered HTTP " + status + " with a body that is not JSON: " + Excerpts.of(text),
          status, null, false, null);
    }
    ChatResponse completion = ChatCompletionsWire.parseCompletion(json, where);
    return new Outcome<>(completion.streamedTo(listener), null, null);
  }

  /** A streamed answer; a stream that already produced text is not retriable (the listener saw it). */
  private Outcome<ChatResponse> stream(StreamListener listener, int status, BoundedLines lines, long started) {
    StreamAssembler assembler = new StreamAssembler(where, listener);
    try {
      SseReader.read(lines, endpoint.streamIdleTimeout(), started + endpoint.streamTimeout().toNanos(), endpoint.time(), where, assembler::accept);
      if (!assembler.finished()) {
        throw new LlmException(
            LlmErrorCode.LLM_BAD_RESPONSE, "the stream from " + where + " ended without [DONE] or a finish_reason, so the answer may be cut off",
            status, null, true, null);
      }
    } catch (LlmException e) {
      boolean retriable = e.isRetriable() && !assembler.emitted();
      return Outcome.failed(new LlmException(e.code(), e.getMessage(), status, e.providerMessage(), retriable, null));
    }
    return new Outcome<>(assembler.response(), null, null);
  }

  private HttpResponse<InputStream> send(HttpRequest request) {
    try {
      return endpoint.http().send(request, HttpResponse.BodyHandlers.ofInputStream());
    } catch (HttpTimeoutException e) {
      throw new LlmException(
          LlmErrorCode.LLM_TIMEOUT, "model endpoint " + where + " did not answer within " + endpoint.requestTimeout().toMillis() + " ms",
          0, null, true, e);
    } catch (ConnectException e) {
      throw new LlmException(
          LlmErrorCode.LLM_UNREACHABLE, "cannot connect to model endpoint " + where + ": check the base URL and that the server is running",
          0, null, true, e);
    } catch (IOException e) {
      throw new LlmException(LlmErrorCode.LLM_UNREACHABLE, "request to model endpoint " + where + " failed: " + e, 0, null, true, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LlmException(LlmErrorCode.LLM_CANCELLED, "interrupted while waiting for " + where, 0, null, false, e);
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
        Duration d = Duration.between(endpoint.clock().instant(), at);
        return d.isNegative() ? Duration.ZERO : d;
      } catch (DateTimeParseException unreadable) {
        return null;
      }
    }
  }

  /** The whole body as text, lines joined, within the deadline (on the endpoint's {@code TimeSource}). */
  private String joined(BoundedLines lines, long deadlineNanos) {
    StringBuilder text = new StringBuilder();
    try {
      for (String line; (line = lines.next(Duration.ofNanos(Math.max(0, deadlineNanos - endpoint.time().nanoTime())), endpoint.time())) != null; ) {
        if (text.length() > 0) {
          text.append('\n');
        }
        text.append(line);
      }
      return text.toString();
    } catch (BoundedLines.Failure f) {
      throw switch (f.kind()) {
        case WAITED_TOO_LONG -> new LlmException(
            LlmErrorCode.LLM_TIMEOUT,
            "model endpoint " + where + " did not send its whole answer within " + endpoint.requestTimeout().toMillis() + " ms",
            0, null, true, null);
        case TOO_LARGE -> new LlmException(LlmErrorCode.LLM_BAD_RESPONSE, "model endpoint " + where + ": " + f.getMessage(), 0, null, false, null);
        case BROKEN -> new LlmException(LlmErrorCode.LLM_UNREACHABLE, "model endpoint " + where + ": " + f.getMessage(), 0, null, true, null);
      };
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LlmException(LlmErrorCode.LLM_CANCELLED, "interrupted while reading from " + where, 0, null, false, e);
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
}
