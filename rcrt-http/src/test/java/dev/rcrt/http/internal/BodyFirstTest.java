package dev.rcrt.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A body is read whole before it is served, kept up to its cap, and a refusal is readable by a client that still sends. */
class BodyFirstTest {
  private static final int MAX = 4096;

  /** Echoes the body's length; refuses {@code /refused} from its head, whatever its body. */
  private final HttpListener listener = new HttpListener("the test server", "127.0.0.1", 0, Duration.ofSeconds(30), ErrorBody.PLAIN,
      new BodyFirst("test", (request, response) -> {
        if (request.getRequestURI().equals("/refused")) {
          response.setStatus(401);
          response.getOutputStream().write("{\"error\":\"no\"}".getBytes(StandardCharsets.UTF_8));
          return null;
        }
        return body -> {
          response.setStatus(body == null ? 413 : 200);
          response.getOutputStream().write(("{\"length\":" + (body == null ? -1 : body.length) + "}").getBytes(StandardCharsets.UTF_8));
        };
      }, ErrorBody.PLAIN, MAX, Duration.ofSeconds(30)), List.of());
  private final HttpClient http = HttpClient.newHttpClient();

  @AfterEach
  void close() {
    listener.close();
  }

  private HttpResponse<String> post(String path, HttpRequest.BodyPublisher body) throws IOException, InterruptedException {
    return http.send(HttpRequest.newBuilder(listener.base().resolve(path)).timeout(Duration.ofSeconds(60)).POST(body).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aBodyUpToTheCapIsServedWholeWithALengthOrInChunks() throws Exception {
    assertThat(post("/x", HttpRequest.BodyPublishers.ofString("y".repeat(MAX))).body()).isEqualTo("{\"length\":4096}");
    assertThat(post("/x", HttpRequest.BodyPublishers.noBody()).body()).isEqualTo("{\"length\":0}");
    // no Content-Length: chunked
    assertThat(post("/x", HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(new byte[3000]))).body())
        .isEqualTo("{\"length\":3000}");
  }

  @Test
  void aBodyPastTheCapIsServedAsNullAndTheClientReadsTheRefusal() throws Exception {
    HttpResponse<String> refused = post("/x", HttpRequest.BodyPublishers.ofString("y".repeat(2 * 1024 * 1024)));
    assertThat(refused.statusCode()).isEqualTo(413);
    assertThat(refused.body()).isEqualTo("{\"length\":-1}");
  }

  @Test
  void aRefusalFromTheHeadIsReadableThoughTheClientSendsABody() throws Exception {
    HttpResponse<String> refused = post("/refused", HttpRequest.BodyPublishers.ofString("y".repeat(1024 * 1024)));
    assertThat(refused.statusCode()).isEqualTo(401);
    assertThat(refused.body()).isEqualTo("{\"error\":\"no\"}");
  }

  @Test
  void aRefusalFromTheHeadStaysTheAnswerThoughTheBodyRunsFarPastWhatIsThrownAway() throws Exception {
    // declared: nothing is read
    assertThat(declaredFarPastTheCap("/refused")).startsWith("HTTP/1.1 401").contains("Connection: close").endsWith("{\"error\":\"no\"}");
    // chunked: read and thrown away until more than BodyReader.DISCARDED bytes came, then the connection is closed
    URI base = listener.base();
    try (Socket s = new Socket(base.getHost(), base.getPort())) {
      s.setSoTimeout(60_000);
      Thread sender = new Thread(() -> {
        try {
          java.io.OutputStream out = s.getOutputStream();
          out.write("POST /refused HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
          byte[] chunk = ("10000\r\n" + "y".repeat(0x10000) + "\r\n").getBytes(StandardCharsets.US_ASCII);
          for (long sent = 0; sent <= 2 * BodyReader.DISCARDED; sent += 0x10000) {
            out.write(chunk);
          }
        } catch (IOException closedByTheServer) {
          // expected once the server has had enough
        }
      });
      sender.start();
      String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      sender.join(60_000);
      assertThat(answer).startsWith("HTTP/1.1 401").contains("Connection: close").endsWith("{\"error\":\"no\"}");
    }
  }

  @Test
  void aBodyDeclaredFarPastTheCapIsRefusedAtOnceAndItsConnectionClosed() throws Exception {
    assertThat(declaredFarPastTheCap("/x")).startsWith("HTTP/1.1 413").contains("Connection: close")
        .contains("{\"error\":\"the body is larger than 4096 bytes\"}");
  }

  /** The whole answer, head and body, to a POST to {@code path} that declares a 100 MB body and sends one byte of it. */
  private String declaredFarPastTheCap(String path) throws IOException {
    URI base = listener.base();
    try (Socket s = new Socket(base.getHost(), base.getPort())) {
      s.setSoTimeout(60_000);
      s.getOutputStream().write(("POST " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000000\r\n\r\n{").getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
