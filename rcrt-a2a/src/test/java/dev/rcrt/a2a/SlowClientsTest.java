package dev.rcrt.a2a;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.testing.ScriptedLlmClient;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.ToolRunner;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Slowloris and slow readers: clients that start requests and trickle them, or never take in their
 * answer, hold connections but no request thread, so everyone else is served; a body not sent in
 * time is answered 408, and a caller that takes in nothing is cut off.
 */
class SlowClientsTest {
  /** More than Tomcat's 200 request threads, and than the JDK server's 64 the endpoint had before. */
  private static final int SLOW = 240;
  private static final String MESSAGE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"%s\",\"params\":{\"message\":{\"kind\":\"message\","
      + "\"messageId\":\"m1\",\"role\":\"user\",\"parts\":[{\"kind\":\"text\",\"text\":\"hi\"}]}}}";

  @Test
  void clientsThatNeverFinishTheirHeadsOrBodiesHoldNoThreadAndEveryoneElseIsServed() throws Exception {
    InMemoryBreadcrumbStore store = store();
    List<Socket> slow = new ArrayList<>();
    try (ToolRunner runner = ToolRunner.builder(store).build();
        A2aServer server = A2aServer.builder(ScriptedLlmClient.answering(r -> ChatResponse.text("hi")), runner).start()) {
      URI base = server.uri();
      for (int i = 0; i < SLOW; i++) {
        // half send a request line and one header, never the blank line that ends them; half a whole head and the
        // first byte of a body of 60,000
        slow.add(send(base, i % 2 == 0 ? "GET /.well-known/agent-card.json HTTP/1.1\r\nHost: localhost\r\n"
            : "POST /a2a/default-chat-assistant HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                + "Content-Length: 60000\r\n\r\n{"));
      }
      HttpClient http = HttpClient.newHttpClient();
      HttpResponse<String> card = http.send(HttpRequest.newBuilder(base.resolve("/.well-known/agent-card.json"))
          .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(card.statusCode()).isEqualTo(200);
      HttpResponse<String> answer = http.send(HttpRequest.newBuilder(base.resolve("/a2a/default-chat-assistant"))
          .timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(MESSAGE.formatted("message/send"))).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(answer.statusCode()).isEqualTo(200);
      assertThat(answer.body()).contains("\"hi\"");
      assertThat(slow).as("the slow clients are still connected").noneMatch(Socket::isClosed);
    } finally {
      for (Socket s : slow) {
        s.close();
      }
    }
  }

  @Test
  void aBodyNotSentWithinTheRequestTimeoutIsAnswered408AndItsConnectionClosed() throws Exception {
    try (ToolRunner runner = ToolRunner.builder(store()).build();
        A2aServer server = A2aServer.builder(ScriptedLlmClient.answering(r -> ChatResponse.text("hi")), runner)
            .requestTimeout(Duration.ofSeconds(1)).start();
        Socket s = send(server.uri(), "POST /a2a/default-chat-assistant HTTP/1.1\r\nHost: localhost\r\n"
            + "Content-Type: application/json\r\nContent-Length: 60000\r\n\r\n{")) {
      String answer = new String(readToEnd(s), StandardCharsets.UTF_8);
      assertThat(answer).startsWith("HTTP/1.1 408").contains("\"code\":-32600").contains("not sent within 1000 ms")
          .doesNotContain("Exception").doesNotContain("Tomcat");
    }
  }

  @Test
  void anAnswerThatTakesLongerThanTheRequestTimeoutIsNotCutOff() throws Exception {
    // the timeout bounds how long a client may be slow, not how long the server may take: a model that answers only
    // once a connection it opened to the same server, idle since, has been cut by that timeout (so the call lasted
    // longer than it), on a blocking message/send and on a stream that is silent meanwhile
    java.util.concurrent.atomic.AtomicReference<URI> base = new java.util.concurrent.atomic.AtomicReference<>();
    ScriptedLlmClient slow = ScriptedLlmClient.answering(r -> {
      try (Socket idle = send(java.util.Objects.requireNonNull(base.get()), "GET /.well-known/agent-card.json HTTP/1.1\r\nHost: localhost\r\n")) {
        readToEnd(idle);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      return ChatResponse.text("late but whole");
    });
    try (ToolRunner runner = ToolRunner.builder(store()).build();
        A2aServer server = A2aServer.builder(slow, runner).requestTimeout(Duration.ofSeconds(1)).start()) {
      base.set(server.uri());
      HttpClient http = HttpClient.newHttpClient();
      for (String method : List.of("message/send", "message/stream")) {
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(server.uri().resolve("/a2a/default-chat-assistant"))
            .timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(MESSAGE.formatted(method).replace("m1", "m-" + method))).build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(method).isEqualTo(200);
        assertThat(answer.body()).as(method).contains("late but whole");
      }
    }
  }

  @Test
  void aHeadLeftIdleForTheRequestTimeoutHasItsConnectionClosed() throws Exception {
    try (ToolRunner runner = ToolRunner.builder(store()).build();
        A2aServer server = A2aServer.builder(ScriptedLlmClient.answering(r -> ChatResponse.text("hi")), runner)
            .requestTimeout(Duration.ofSeconds(1)).start();
        Socket s = send(server.uri(), "GET /.well-known/agent-card.json HTTP/1.1\r\nHost: localhost\r\n")) {
      assertThat(new String(readToEnd(s), StandardCharsets.UTF_8)).as("no card for a request that never ended").doesNotContain("200");
    }
  }

  @Test
  void aCallerThatDoesNotReadItsStreamIsCutOffAtTheRequestTimeoutAndItsStreamThreadIsFree() throws Exception {
    InMemoryBreadcrumbStore store = store();
    int answerChars = 8 * 1024 * 1024; // more than the connection's buffers hold, so the event's write blocks
    try (ToolRunner runner = ToolRunner.builder(store).build();
        A2aServer server = A2aServer.builder(ScriptedLlmClient.answering(r -> ChatResponse.text("x".repeat(answerChars))), runner)
            .requestTimeout(Duration.ofSeconds(5)).start();
        Socket s = new Socket()) {
      URI endpoint = server.uri();
      s.setReceiveBufferSize(4096); // before connecting: a small window, and the caller never reads
      s.connect(new InetSocketAddress(endpoint.getHost(), endpoint.getPort()));
      byte[] bytes = MESSAGE.formatted("message/stream").getBytes(StandardCharsets.UTF_8);
      s.getOutputStream().write(("POST /a2a/default-chat-assistant HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
          + "Accept: text/event-stream\r\nContent-Length: " + bytes.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().write(bytes);
      s.getOutputStream().flush();

      awaitStreamWriteBlocked(); // an event is being written to a caller that takes none of it
      awaitNoStreamWrite(); // until the timeout cuts it, which frees the stream's thread
      long read = readToEnd(s).length;
      assertThat(read).as("the connection was closed before the event was whole").isLessThan(answerChars);
    }
  }

  private static InMemoryBreadcrumbStore store() {
    InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().build();
    BuiltinTools.seed(store);
    store.create(AgentDefinition.defaultChatAgent());
    return store;
  }

  /** A connection to {@code base} that has sent {@code start}. */
  private static Socket send(URI base, String start) throws IOException {
    Socket s = new Socket(base.getHost(), base.getPort());
    s.setSoTimeout(60_000);
    s.getOutputStream().write(start.getBytes(StandardCharsets.US_ASCII));
    s.getOutputStream().flush();
    return s;
  }

  /** What the server sent until it closed the connection (an orderly close or a reset); fails after 60 s of silence. */
  private static byte[] readToEnd(Socket s) throws IOException {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    try (InputStream in = s.getInputStream()) {
      byte[] buffer = new byte[64 * 1024];
      for (int n; (n = in.read(buffer)) > 0; ) {
        out.write(buffer, 0, n);
      }
    } catch (java.net.SocketException reset) {
      // a reset is a close too
    }
    return out.toByteArray();
  }

  /** Whether a thread of this JVM is inside the A2A endpoint's write of a stream event to its caller. */
  private static boolean streamWriteUnderWay() {
    return Thread.getAllStackTraces().values().stream().anyMatch(stack -> java.util.Arrays.stream(stack)
        .anyMatch(f -> f.getClassName().startsWith("dev.rcrt.a2a.internal.A2aEndpoint") && f.getMethodName().equals("onNext")));
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
}
