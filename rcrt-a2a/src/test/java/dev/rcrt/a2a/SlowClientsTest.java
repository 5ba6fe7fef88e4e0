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
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (clock.pendingTimers() < count) {
      assertThat(System.nanoTime()).as("%d request deadlines pending", count).isLessThan(deadline);
      Thread.sleep(10);
    }
  }
}
