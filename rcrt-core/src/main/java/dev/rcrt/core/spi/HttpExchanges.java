package dev.rcrt.core.spi;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Flow;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * An HTTP exchange whose future completes on a thread of the SDK's, never on the common fork-join
 * pool. The JDK's {@link HttpClient#sendAsync} completes its future on {@code CompletableFuture}'s
 * default executor, whatever the client's executor ({@code HttpClientImpl}: {@code
 * whenCompleteAsync(…, ASYNC_POOL)}): the common pool on JDK 25, and on JDK 17 with three or more
 * cores. A host that keeps that pool busy (parallel streams, {@code supplyAsync} without an
 * executor) would hold back every response the SDK waits for until its time limit.
 *
 * <p>{@link #sendAsync} runs the exchange with {@link HttpClient#send} on a thread of a pool of
 * daemon threads owned by this class (created as needed, each ended after a minute unused), never
 * on the client's own executor: the client needs that one to read the response, and a bounded one
 * whose every thread waited in {@code send} would never see it. The thread is held until the response's head has
 * arrived and the body handler's subscriber completed (at once for a streamed body). Cancelling the
 * future interrupts the exchange, which the JDK client then abandons; a response that arrives after
 * the cancel has its streamed body cancelled, so its connection is let go. Thread-safe.
 */
public final class HttpExchanges {
  private HttpExchanges() {}

  private static final ExecutorService EXCHANGES = new ThreadPoolExecutor(
      0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(), DaemonThreads.factory("rcrt-http-exchange"));

  /**
   * Sends {@code request} as {@link HttpClient#sendAsync(HttpRequest, HttpResponse.BodyHandler)}
   * does, with the future completed off the common pool (see the class comment). The future fails
   * with what {@code send} throws: {@link java.io.IOException} (an {@link
   * java.net.http.HttpTimeoutException} when the request's timeout passed), or {@link
   * InterruptedException} when cancelled meanwhile.
   */
  public static <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpClient http, HttpRequest request, HttpResponse.BodyHandler<T> handler) {
    Objects.requireNonNull(http, "http");
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(handler, "handler");
    Exchange<T> exchange = new Exchange<>();
    EXCHANGES.execute(() -> exchange.run(() -> http.send(request, handler)));
    return exchange;
  }

  /** One exchange's future: completed by the thread that runs it; cancelling it interrupts that thread. */
  private static final class Exchange<T> extends CompletableFuture<HttpResponse<T>> {
    private @Nullable Thread runner;

    void run(java.util.concurrent.Callable<HttpResponse<T>> send) {
      synchronized (this) {
        if (isDone()) {
          return; // cancelled before it began
        }
        runner = Thread.currentThread();
      }
      try {
        HttpResponse<T> response = send.call();
        if (!complete(response) && response.body() instanceof Flow.Publisher<?> body) {
          body.subscribe(new Abandoned()); // cancelled meanwhile: nobody takes the body
        }
      } catch (Throwable t) {
        completeExceptionally(t);
      } finally {
        synchronized (this) {
          runner = null;
        }
        Thread.interrupted(); // a cancel that came after the answer leaves the pool's thread as it found it
      }
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      boolean cancelled = super.cancel(mayInterruptIfRunning);
      synchronized (this) {
        if (runner != null) {
          runner.interrupt();
        }
      }
      return cancelled;
    }
  }

  /** Takes a body nobody wants and cancels it at once. */
  private static final class Abandoned implements Flow.Subscriber<Object> {
    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      subscription.cancel();
    }

    @Override
    public void onNext(Object item) {}

    @Override
    public void onError(Throwable throwable) {}

    @Override
    public void onComplete() {}
  }
}
