package dev.rcrt.a2a;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.testing.ScriptedLlmClient;
import dev.rcrt.testing.TestClock;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.ToolRunner;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Slowloris: clients that start requests and trickle them hold the JDK server's request threads
 * only until the request timeout, on the runner's time; then they are cut off and everyone else is
 * served again.
 */
class SlowClientsTest {
  private static final int THREADS = 64; // the server's request threads
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  @Test
  void clientsThatNeverFinishTheirRequestsAreCutOffAtTheRequestTimeoutAndOthersAreServed() throws Exception {
    slowClientsAreCutOff("GET /.well-known/agent-card.json HTTP/1.1\r\nHost: localhost\r\n");
  }

  @Test
  void aBodyThatNoHandlerReadsHoldsAThreadNoLongerThanTheTimeout() throws Exception {
    // the card is answered, but the server reads what the client said it would send before it closes the exchange
    slowClientsAreCutOff("GET /.well-known/agent-card.json HTTP/1.1\r\nHost: localhost\r\nContent-Length: 60000\r\n\r\n{");
  }

  /** {@code 70} clients send {@code start} and nothing more; a client with a whole request is served once the time passes. */
  private void slowClientsAreCutOff(String start) throws Exception {
    TestClock clock = new TestClock();
    InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().build();
    BuiltinTools.seed(store);
    store.create(AgentDefinition.defaultChatAgent());
    List<Socket> slow = new ArrayList<>();
    try (ToolRunner runner = ToolRunner.builder(store).timeSource(clock).build();
        A2aServer server = A2aServer.builder(ScriptedLlmClient.answering(r -> ChatResponse.text("hi")), runner).requestTimeout(TIMEOUT).start()) {
      URI card = server.uri().resolve("/.well-known/agent-card.json");
      int timersBefore = clock.pendingTimers();
      // more slow clients than threads: each sends a request line and one header, never the blank line that ends them
      for (int i = 0; i < THREADS + 6; i++) {
        Socket s = new Socket(card.getHost(), card.getPort());
        s.setSoTimeout(30_000);
        s.getOutputStream().write(start.getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        slow.add(s);
      }
      awaitTimers(clock, timersBefore + THREADS); // every thread is reading a slow request, and has its deadline
      CompletableFuture<HttpResponse<String>> answer = HttpClient.newHttpClient()
          .sendAsync(HttpRequest.newBuilder(card).timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());

      clock.advance(TIMEOUT.plusSeconds(1)); // the requests the threads read are cut off; the rest, and the card request, get threads
      assertThat(answer.get(60, TimeUnit.SECONDS).statusCode()).isEqualTo(200);

      awaitTimers(clock, timersBefore + slow.size() - THREADS); // the slow clients that got a thread then are being read
      clock.advance(TIMEOUT.plusSeconds(1)); // and are cut off too
      for (Socket s : slow) {
        assertThat(closedAfterAnyAnswer(s)).as("a cut-off client gets its connection closed").isTrue();
      }
    } finally {
      for (Socket s : slow) {
        s.close();
      }
    }
  }

  @Test
  void aCallerThatDoesNotReadItsStreamIsCutOffAtTheRequestTimeoutAndItsStreamThreadIsFree() throws Exception {
    TestClock clock = new TestClock();
    InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().build();
    store.create(AgentDefinition.defaultChatAgent());
    int answerChars = 8 * 1024 * 1024; // more than the connection's buffers hold, so the event's write blocks
    try (ToolRunner runner = ToolRunner.builder(store).timeSource(clock).build();
        A2aServer server = A2aServer.builder(ScriptedLlmClient.answering(r -> ChatResponse.text("x".repeat(answerChars))), runner)
            .requestTimeout(TIMEOUT).start();
        Socket s = new Socket()) {
      URI endpoint = server.uri();
      s.setReceiveBufferSize(4096); // before connecting: a small window, and the caller never reads
      s.connect(new java.net.InetSocketAddress(endpoint.getHost(), endpoint.getPort()));
      String body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"message/stream\",\"params\":{\"message\":{\"kind\":\"message\","
          + "\"messageId\":\"m1\",\"role\":\"user\",\"parts\":[{\"kind\":\"text\",\"text\":\"hi\"}]}}}";
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      s.getOutputStream().write(("POST /a2a/default-chat-assistant HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
          + "Accept: text/event-stream\r\nContent-Length: " + bytes.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().write(bytes);
      s.getOutputStream().flush();

      // the answer is recorded, so the events written from now on carry it; one of them is being written to a caller
      // that takes none of it
      awaitAnswer(store);
      awaitStreamWriteBlocked();
      clock.advance(TIMEOUT.plusSeconds(1));

      long read = 0;
      s.setSoTimeout(60_000);
      try (java.io.InputStream in = s.getInputStream()) {
        byte[] buffer = new byte[64 * 1024];
        for (int n; (n = in.read(buffer)) > 0; ) {
          read += n;
        }
      } catch (java.net.SocketException reset) {
        // a reset is a cut too
      }
      assertThat(read).as("the connection was closed before the event was whole").isLessThan(answerChars);
      awaitNoStreamWrite(); // and the stream's thread is free again
    }
  }

  /** Whether a thread of this JVM is inside the A2A server's write of a stream event to its caller (its bounded write). */
  private static boolean streamWriteUnderWay() {
    return Thread.getAllStackTraces().values().stream().anyMatch(stack -> java.util.Arrays.stream(stack)
        .anyMatch(f -> f.getClassName().startsWith("dev.rcrt.a2a.internal.RequestDeadline") && f.getMethodName().equals("write")));
  }

  private static void awaitAnswer(InMemoryBreadcrumbStore store) throws InterruptedException {
    java.util.concurrent.Semaphore written = new java.util.concurrent.Semaphore(0);
    try (dev.rcrt.core.Subscription s = store.subscribe(dev.rcrt.core.Selector.all(), e -> written.release())) {
      while (store.search(dev.rcrt.core.Selector.allTags("agent:response"), 1, 0).isEmpty()) {
        assertThat(written.tryAcquire(60, TimeUnit.SECONDS)).as("a record written while the answer is awaited").isTrue();
      }
    }
  }

  private static void awaitStreamWriteBlocked() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    int seen = 0;
    while (seen < 20) { // seen under way 20 times in a row: the write is blocked, not a small event passing through
      seen = streamWriteUnderWay() ? seen + 1 : 0;
      assertThat(System.nanoTime()).as("a stream write under way").isLessThan(deadline);
      Thread.sleep(10);
    }
  }

  private static void awaitNoStreamWrite() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (streamWriteUnderWay()) {
      assertThat(System.nanoTime()).as("the stream's write ended").isLessThan(deadline);
      Thread.sleep(10);
    }
  }

  /** Whether the server closed {@code s} (an orderly close or a reset), after whatever it answered. */
  private static boolean closedAfterAnyAnswer(Socket s) throws java.io.IOException {
    try {
      s.getInputStream().readAllBytes();
      return true;
    } catch (java.net.SocketException reset) {
      return true;
    }
  }

  /** Waits until {@code clock} has {@code count} timers pending (the server schedules one per request it reads). */
  private static void awaitTimers(TestClock clock, int count) throws InterruptedException {
    assertThat(clock.awaitPendingTimers(count, java.time.Duration.ofSeconds(60))).as("%d request deadlines pending", count).isTrue();
  }
}
