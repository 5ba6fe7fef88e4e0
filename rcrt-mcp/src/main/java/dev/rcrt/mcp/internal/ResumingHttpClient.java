package dev.rcrt.mcp.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.TimeSource;
import dev.rcrt.core.ValidationException;
import dev.rcrt.core.spi.HttpExchanges;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import org.jspecify.annotations.Nullable;

/**
 * The MCP client's HTTP client, which carries a request's event stream on after the server closed
 * it before its answer (MCP 2025-11-25, SEP-1699: a server that polls closes a stream once it has
 * sent an event id and a {@code retry}, and the client comes back after {@code retry} with {@code
 * GET} and {@code Last-Event-ID}). The MCP Java SDK's transport takes a request's stream that ended
 * for an answered one and waits for the answer until its request times out; so the client does the
 * coming back itself, below the SDK: when a request's stream ({@code POST}) ends after an event id
 * but before any JSON-RPC response, it sends {@code GET} with the request's headers and {@code
 * Last-Event-ID} after {@code retry} (1 s when the server named none, 100 ms at the least), and hands that response's
 * events on as the rest of the same stream, again as often as the server closes it. The SDK sees
 * one stream. A session's listening stream ({@code GET}) that the server closes after an event id
 * is carried on the same way, until the client closes it. A resumption refused, or failing, ends the stream with the error. Every other
 * response passes as it came. Thread-safe, as the client it wraps.
 */
public final class ResumingHttpClient extends HttpClient {
  /** The wait before resuming when the server sent no {@code retry}. */
  static final Duration DEFAULT_RETRY = Duration.ofSeconds(1);

  /** The shortest wait before resuming, whatever {@code retry} says: a server cannot make the client poll in a tight loop. */
  static final Duration MIN_RETRY = Duration.ofMillis(100);

  private final HttpClient http;

  ResumingHttpClient(HttpClient http) {
    this.http = http;
  }

  /** A builder for the SDK's transport ({@code clientBuilder}) whose clients resume so. */
  public static HttpClient.Builder builder() {
    return new Builder(HttpClient.newBuilder().version(Version.HTTP_1_1));
  }

  @Override
  public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler) throws IOException, InterruptedException {
    return http.send(request, watched(request, handler));
  }

  /**
   * As the JDK's, but completed off the common fork-join pool ({@link HttpExchanges}): the MCP SDK
   * waits for every response through this future, so a host that kept that pool busy held back
   * every call until its timeout.
   */
  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
    return HttpExchanges.sendAsync(http, request, watched(request, handler));
  }

  /** Server push is HTTP/2's, which this client does not speak ({@link #builder()}); as the JDK's. */
  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(
      HttpRequest request, HttpResponse.BodyHandler<T> handler, HttpResponse.PushPromiseHandler<T> push) {
    return http.sendAsync(request, watched(request, handler), push);
  }

  private <T> HttpResponse.BodyHandler<T> watched(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
    if (!"POST".equals(request.method()) && !"GET".equals(request.method())) {
      return handler;
    }
    return info -> {
      HttpResponse.BodySubscriber<T> inner = handler.apply(info);
      return events(info) ? new Continued<>(inner, request) : inner;
    };
  }

  private static boolean events(HttpResponse.ResponseInfo info) {
    return info.statusCode() == 200 && info.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream");
  }

  /**
   * The SDK's subscriber of one request's stream, fed by the {@code POST}'s response and then by
   * each {@code GET} that resumes it. Its demand is kept and asked again of each new response.
   */
  private final class Continued<T> implements HttpResponse.BodySubscriber<T>, Flow.Subscription {
    private final HttpResponse.BodySubscriber<T> inner;
    private final HttpRequest first;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private final StringBuilder data = new StringBuilder();
    private Flow.@Nullable Subscription upstream;
    private long demand;
    private boolean started;
    private boolean cancelled;
    private @Nullable String lastId;
    private boolean answered;
    private long retryMillis = DEFAULT_RETRY.toMillis();

    Continued(HttpResponse.BodySubscriber<T> inner, HttpRequest first) {
      this.inner = inner;
      this.first = first;
    }

    @Override
    public CompletionStage<T> getBody() {
      return inner.getBody();
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      boolean first;
      long again;
      synchronized (this) {
        upstream = subscription;
        first = !started;
        started = true;
        again = demand;
      }
      if (first) {
        inner.onSubscribe(this);
      } else if (again > 0) {
        subscription.request(again);
      }
    }

    @Override
    public void request(long n) {
      Flow.Subscription s;
      synchronized (this) {
        demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
        s = upstream;
      }
      if (s != null) {
        s.request(n);
      }
    }

    @Override
    public void cancel() {
      Flow.Subscription s;
      synchronized (this) {
        cancelled = true;
        s = upstream;
      }
      if (s != null) {
        s.cancel();
      }
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
      synchronized (this) {
        if (demand != Long.MAX_VALUE) {
          demand--;
        }
      }
      for (ByteBuffer b : items) {
        ByteBuffer view = b.duplicate();
        while (view.hasRemaining()) {
          byte c = view.get();
          if (c == '\n') {
            line(line.toString(StandardCharsets.UTF_8));
            line.reset();
          } else if (c != '\r') {
            line.write(c);
          }
        }
      }
      inner.onNext(items);
    }

    private void line(String text) {
      if (text.isEmpty()) {
        event();
      } else if (text.startsWith("id:")) {
        lastId = text.substring(3).strip();
      } else if (text.startsWith("retry:")) {
        try {
          retryMillis = Math.max(0, Long.parseLong(text.substring(6).strip()));
        } catch (NumberFormatException ignored) {
          // not a number: SSE says to ignore the field
        }
      } else if (text.startsWith("data:")) {
        data.append(text.substring(text.startsWith("data: ") ? 6 : 5));
      }
    }

    private void event() {
      if (data.length() > 0 && !answered) {
        try {
          JsonNode message = RcrtJson.parse(data.toString());
          answered = message.has("id") && !message.has("method") && (message.has("result") || message.has("error"));
        } catch (ValidationException notJson) {
          // not a JSON-RPC message: the SDK says so
        }
      }
      data.setLength(0);
    }

    @Override
    public void onError(Throwable failure) {
      inner.onError(failure);
    }

    @Override
    public void onComplete() {
      String from;
      synchronized (this) {
        from = lastId;
        if (answered || from == null || cancelled) {
          from = null;
        }
      }
      if (from == null) {
        inner.onComplete();
        return;
      }
      String resumeFrom = from;
      long wait = Math.max(retryMillis, MIN_RETRY.toMillis());
      // on the SDK's timer thread, which only hands the GET to the HTTP client (sendAsync starts the exchange on the
      // client's own executor): CompletableFuture.delayedExecutor ran it on the common fork-join pool, where on JDK 25 (and
      // on JDK 17 with 3 or more cores) a caller blocked in that pool, such as a call waiting for this very answer, held
      // the resumption back until the call timed out
      TimeSource.system().schedule(Duration.ofMillis(wait), () -> resume(resumeFrom));
    }

    /** Comes back for the rest of the stream: {@code GET} with the first request's headers and {@code Last-Event-ID}. */
    private void resume(String from) {
      synchronized (this) {
        if (cancelled) {
          return;
        }
      }
      HttpRequest.Builder get = HttpRequest.newBuilder(first.uri()).GET();
      first.timeout().ifPresent(get::timeout);
      first.headers().map().forEach((name, values) -> {
        if (!name.equalsIgnoreCase("Content-Type") && !name.equalsIgnoreCase("Content-Length") && !name.equalsIgnoreCase("Accept")
            && !name.equalsIgnoreCase("Last-Event-ID")) {
          values.forEach(v -> get.header(name, v));
        }
      });
      get.header("Accept", "text/event-stream").header("Last-Event-ID", from);
      http.sendAsync(get.build(), info -> {
        if (events(info)) {
          return new Rest();
        }
        onError(new IOException("the MCP server refused to resume the stream (HTTP " + info.statusCode() + ")"));
        return HttpResponse.BodySubscribers.discarding();
      }).whenComplete((response, failure) -> {
        if (failure != null) {
          onError(new IOException("the MCP server could not be reached to resume the stream: " + failure.getMessage(), failure));
        }
      });
    }

    /** A resuming response's body, handed on as more of the same stream. */
    private final class Rest implements HttpResponse.BodySubscriber<Void> {
      @Override
      public CompletionStage<Void> getBody() {
        return CompletableFuture.completedFuture(null);
      }

      @Override
      public void onSubscribe(Flow.Subscription subscription) {
        Continued.this.onSubscribe(subscription);
      }

      @Override
      public void onNext(List<ByteBuffer> items) {
        Continued.this.onNext(items);
      }

      @Override
      public void onError(Throwable failure) {
        Continued.this.onError(failure);
      }

      @Override
      public void onComplete() {
        Continued.this.onComplete();
      }
    }
  }

  @Override
  public Optional<CookieHandler> cookieHandler() {
    return http.cookieHandler();
  }

  @Override
  public Optional<Duration> connectTimeout() {
    return http.connectTimeout();
  }

  @Override
  public Redirect followRedirects() {
    return http.followRedirects();
  }

  @Override
  public Optional<ProxySelector> proxy() {
    return http.proxy();
  }

  @Override
  public SSLContext sslContext() {
    return http.sslContext();
  }

  @Override
  public SSLParameters sslParameters() {
    return http.sslParameters();
  }

  @Override
  public Optional<Authenticator> authenticator() {
    return http.authenticator();
  }

  @Override
  public Version version() {
    return http.version();
  }

  @Override
  public Optional<Executor> executor() {
    return http.executor();
  }

  /** Builds the JDK's client with the settings given, wrapped. */
  private record Builder(HttpClient.Builder jdk) implements HttpClient.Builder {
    @Override
    public HttpClient.Builder cookieHandler(CookieHandler cookieHandler) {
      jdk.cookieHandler(cookieHandler);
      return this;
    }

    @Override
    public HttpClient.Builder connectTimeout(Duration duration) {
      jdk.connectTimeout(duration);
      return this;
    }

    @Override
    public HttpClient.Builder sslContext(SSLContext sslContext) {
      jdk.sslContext(sslContext);
      return this;
    }

    @Override
    public HttpClient.Builder sslParameters(SSLParameters sslParameters) {
      jdk.sslParameters(sslParameters);
      return this;
    }

    @Override
    public HttpClient.Builder executor(Executor executor) {
      jdk.executor(executor);
      return this;
    }

    @Override
    public HttpClient.Builder followRedirects(Redirect policy) {
      jdk.followRedirects(policy);
      return this;
    }

    @Override
    public HttpClient.Builder version(Version version) {
      jdk.version(version);
      return this;
    }

    @Override
    public HttpClient.Builder priority(int priority) {
      jdk.priority(priority);
      return this;
    }

    @Override
    public HttpClient.Builder proxy(ProxySelector proxySelector) {
      jdk.proxy(proxySelector);
      return this;
    }

    @Override
    public HttpClient.Builder authenticator(Authenticator authenticator) {
      jdk.authenticator(authenticator);
      return this;
    }

    @Override
    public HttpClient build() {
      return new ResumingHttpClient(jdk.build());
    }
  }
}
