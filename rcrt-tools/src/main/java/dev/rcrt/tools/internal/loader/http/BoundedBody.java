package dev.rcrt.tools.internal.loader.http;

import dev.rcrt.core.spi.HttpExchanges;
import dev.rcrt.core.spi.Throwables;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * One HTTP exchange whose whole response, body included, must arrive within a deadline and within
 * a size cap. The JDK client's own timeout covers only the wait for the headers, so a body sent at
 * one byte a second, or a gigabyte of it, would otherwise hold the call and the heap: here the
 * caller stops waiting at the deadline and cancels the exchange, and the body is read into a buffer
 * that refuses to grow past the cap (cancelling the exchange as soon as it would).
 */
public final class BoundedBody {
  private BoundedBody() {}

  /** What went wrong with an exchange, for the caller to word. */
  public static final class Failure extends Exception {
    private static final long serialVersionUID = 1L;
    /** What kind of failure. */
    public enum Kind { TIMEOUT, TOO_LARGE, IO, INTERRUPTED }

    private final Kind kind;

    Failure(Kind kind, String message, Throwable cause) {
      super(message, cause);
      this.kind = kind;
    }

    public Kind kind() {
      return kind;
    }
  }

  /**
   * Sends {@code request} and reads the response body whole.
   *
   * @param within the time left for the whole exchange; positive
   * @param maxBytes the most body bytes to accept
   * @throws Failure of kind {@code TIMEOUT} at the deadline (the exchange is cancelled), {@code
   *     TOO_LARGE} past the cap, {@code IO} when the connection fails, {@code INTERRUPTED} when the
   *     calling thread is interrupted (its flag is set again)
   */
  public static HttpResponse<byte[]> send(HttpClient http, HttpRequest request, Duration within, long maxBytes) throws Failure {
    return send(http, request, within, maxBytes, null);
  }

  /**
   * {@link #send(HttpClient, HttpRequest, Duration, long)} for a body of server-sent events, read
   * only up to the end of the first event whose data {@code stopAt} accepts (then the exchange is
   * cancelled): a stream that says something wrong, or its last word, ends the wait at once rather
   * than at the deadline. With {@code stopAt} null, the whole body.
   */
  public static HttpResponse<byte[]> send(HttpClient http, HttpRequest request, Duration within, long maxBytes,
      @Nullable Predicate<String> stopAt) throws Failure {
    java.util.concurrent.atomic.AtomicBoolean exceeded = new java.util.concurrent.atomic.AtomicBoolean();
    CompletableFuture<HttpResponse<byte[]>> exchange =
        // completed off the common fork-join pool, where the JDK's own sendAsync completes it: a host that kept that pool
        // busy held every HTTP tool call and A2A exchange until its time limit
        HttpExchanges.sendAsync(http, request, info -> new Capped(maxBytes, exceeded, stopAt == null ? null : new EventSplitter(stopAt)));
    try {
      return exchange.get(Math.max(1, within.toNanos()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      exchange.cancel(true);
      throw new Failure(Failure.Kind.TIMEOUT, "no complete response within " + within.toMillis() + " ms", e);
    } catch (InterruptedException e) {
      exchange.cancel(true);
      Thread.currentThread().interrupt();
      throw new Failure(Failure.Kind.INTERRUPTED, "interrupted", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (exceeded.get()) {
        // the client reports the cancelled stream in its own words; the cause is the cap
        throw new Failure(Failure.Kind.TOO_LARGE, "the response body is larger than " + maxBytes + " bytes", cause == null ? e : cause);
      }
      if (cause instanceof HttpTimeoutException) {
        throw new Failure(Failure.Kind.TIMEOUT, "no response headers within " + within.toMillis() + " ms", cause);
      }
      String message = cause == null ? "failed" : Throwables.describe(cause);
      throw new Failure(Failure.Kind.IO, message, cause == null ? e : cause);
    }
  }

  /** A body larger than the cap. */
  private static final class TooLarge extends IOException {
    private static final long serialVersionUID = 1L;

    TooLarge(long max) {
      super("the response body is larger than " + max + " bytes");
    }
  }

  /** Collects the body up to {@code max} bytes, cancelling the exchange past it, or at the event {@code events} stops at. */
  private static final class Capped implements HttpResponse.BodySubscriber<byte[]> {
    private final long max;
    private final java.util.concurrent.atomic.AtomicBoolean exceeded;
    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    private final CompletableFuture<byte[]> body = new CompletableFuture<>();
    private final @Nullable EventSplitter events;
    private Flow.@Nullable Subscription subscription; // set before the first item arrives

    Capped(long max, java.util.concurrent.atomic.AtomicBoolean exceeded, @Nullable EventSplitter events) {
      this.max = max;
      this.exceeded = exceeded;
      this.events = events;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      this.subscription = subscription;
      subscription.request(1);
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
      for (ByteBuffer item : items) {
        if (buffer.size() + (long) item.remaining() > max) {
          exceeded.set(true);
          java.util.Objects.requireNonNull(subscription).cancel();
          body.completeExceptionally(new TooLarge(max));
          return;
        }
        byte[] chunk = new byte[item.remaining()];
        item.get(chunk);
        int upTo = events == null ? -1 : events.feed(chunk, 0, chunk.length);
        if (upTo >= 0) {
          buffer.write(chunk, 0, upTo);
          java.util.Objects.requireNonNull(subscription).cancel();
          body.complete(buffer.toByteArray());
          return;
        }
        buffer.write(chunk, 0, chunk.length);
      }
      java.util.Objects.requireNonNull(subscription).request(1);
    }

    @Override
    public void onError(Throwable error) {
      body.completeExceptionally(error);
    }

    @Override
    public void onComplete() {
      body.complete(buffer.toByteArray());
    }

    @Override
    public CompletableFuture<byte[]> getBody() {
      return body;
    }
  }
}
