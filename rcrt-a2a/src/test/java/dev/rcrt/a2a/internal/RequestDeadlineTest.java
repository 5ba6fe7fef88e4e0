package dev.rcrt.a2a.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.rcrt.testing.TestClock;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A piece of an answer written within the deadline, on the JDK's server, from a thread in any state. */
class RequestDeadlineTest {
  private final ExecutorService pool = Executors.newFixedThreadPool(2);
  private HttpServer server;

  @AfterEach
  void stop() {
    server.stop(0);
    pool.shutdownNow();
  }

  @Test
  void aWriteOnAThreadThatCarriesAStrayInterruptReachesTheClientAndTheInterruptIsKept() throws Exception {
    RequestDeadline deadline = new RequestDeadline(pool, new TestClock(), Duration.ofSeconds(30));
    AtomicBoolean keptAfter = new AtomicBoolean();
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(deadline);
    server.createContext("/", exchange -> {
      exchange.getRequestBody().readAllBytes();
      RequestDeadline.received();
      exchange.sendResponseHeaders(200, 0);
      OutputStream out = exchange.getResponseBody();
      Thread.currentThread().interrupt(); // what a lost Future.cancel(true) race leaves on a pooled thread
      try {
        deadline.write(() -> {
          out.write("data: one\n\n".getBytes(StandardCharsets.UTF_8));
          out.flush();
        });
        keptAfter.set(Thread.interrupted());
        deadline.write(() -> out.write("data: two\n\n".getBytes(StandardCharsets.UTF_8)));
      } finally {
        exchange.close();
      }
    });
    server.start();

    HttpResponse<String> answer = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(answer.body()).isEqualTo("data: one\n\ndata: two\n\n");
    assertThat(keptAfter).as("the caller's interrupt is set again after the write").isTrue();
  }
}
