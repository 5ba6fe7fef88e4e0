package dev.rcrt.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the listener answers itself, for requests no servlet sees or that a servlet fails: JSON in
 * the endpoint's format, never an exception's class, message or stack, nor the server's name.
 */
class HttpListenerTest {
  /** Fails every request it gets, as a servlet with a bug would. */
  private static final class Failing extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) {
      if (request.getRequestURI().equals("/fail")) {
        throw new IllegalStateException("secret internals of dev.rcrt.Example at line 42");
      }
      response.setStatus(204);
    }
  }

  private final HttpListener listener =
      new HttpListener("the test server", "127.0.0.1", 0, Duration.ofSeconds(30), ErrorBody.JSON_RPC, new Failing(), List.of());

  @AfterEach
  void close() {
    listener.close();
  }

  @Test
  void requestsTheServerCannotReadAreAnsweredWithAJsonErrorThatNamesNoJavaType() throws IOException {
    Map<String, String> requests = Map.of(
        "a Content-Length that is not a number", "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\n\r\n{}",
        "two Content-Lengths that disagree", "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
        "a control character in the request target", "GET /\u0001x HTTP/1.1\r\nHost: localhost\r\n\r\n",
        "a brace in the request target", "GET /{x} HTTP/1.1\r\nHost: localhost\r\n\r\n",
        "a method that is not a token", "GE\u0001T / HTTP/1.1\r\nHost: localhost\r\n\r\n",
        "a bad percent-encoding", "GET /%zz HTTP/1.1\r\nHost: localhost\r\n\r\n",
        "a Host header that is not one", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n",
        "an unknown transfer coding", "POST / HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: rot13\r\n\r\n");
    for (Map.Entry<String, String> request : requests.entrySet()) {
      String answer = exchange(request.getValue());
      assertThat(answer).as(request.getKey()).matches("(?s)HTTP/1\\.1 (400|501) .*")
          .contains("Content-Type: application/json").contains("\"code\":-32")
          .doesNotContain("Exception").doesNotContain("Tomcat").doesNotContain("org.apache").doesNotContain("<html");
    }
  }

  @Test
  void aServletsFailureIsA500ThatNamesOnlyALogReference() throws IOException {
    String answer = exchange("GET /fail HTTP/1.1\r\nHost: localhost\r\n\r\n");
    assertThat(answer).startsWith("HTTP/1.1 500").contains("\"code\":-32603").containsPattern("ref [0-9a-f]{8}")
        .doesNotContain("secret internals").doesNotContain("IllegalStateException").doesNotContain("Tomcat");
  }

  @Test
  void aPortInUseIsAnErrorThatNamesTheServerAndTheAddress() {
    int port = listener.base().getPort();
    Assertions.assertThatThrownBy(() -> new HttpListener("the second server", "127.0.0.1", port, Duration.ofSeconds(30),
            ErrorBody.PLAIN, new Failing(), List.of()))
        .isInstanceOf(UncheckedIOException.class).hasMessageContaining("the second server could not listen on 127.0.0.1:" + port);
  }

  @Test
  void onceListeningItKeepsNoDirectorySoAKilledProcessLeavesNothingBehindAndItStillServes() throws IOException {
    // a SIGKILLed server used to leave its Tomcat directory under java.io.tmpdir: one per process, for good
    assertThat(listener.workDir()).as("Tomcat's directory, needed only to start").doesNotExist();
    assertThat(exchange("GET /ok HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")).startsWith("HTTP/1.1 204");
    assertThat(exchange("GET /fail HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")).startsWith("HTTP/1.1 500")
        .contains("\"code\":-32603");
    assertThat(exchange("GET /%zz HTTP/1.1\r\nHost: localhost\r\n\r\n")).startsWith("HTTP/1.1 400");
  }

  /** Sends {@code request} as it is and reads the answer until the server closes the connection. */
  private String exchange(String request) throws IOException {
    URI base = listener.base();
    try (Socket s = new Socket(base.getHost(), base.getPort())) {
      s.setSoTimeout(60_000);
      s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
      s.getOutputStream().flush();
      s.shutdownOutput();
      InputStream in = s.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
