package dev.rcrt.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.rcrt.mcp.McpOAuth;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The ways a command completes an authorization: a person's browser sent back to a listener on
 * this machine, or an authorization server's redirect followed at once; against a real local
 * authorization endpoint that redirects to the {@code redirect_uri} it was given.
 */
class OAuthUserAgentsTest {
  private HttpServer authorizationServer;
  private String authorize;

  @BeforeEach
  void start() throws IOException {
    authorizationServer = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    authorizationServer.createContext("/authorize", exchange -> {
      Map<String, String> q = new java.util.HashMap<>();
      for (String pair : exchange.getRequestURI().getRawQuery().split("&")) {
        String[] kv = pair.split("=", 2);
        q.put(kv[0], java.net.URLDecoder.decode(kv[1], StandardCharsets.UTF_8));
      }
      exchange.getResponseHeaders().set("Location", q.get("redirect_uri") + "?code=c-42&state=" + q.get("state"));
      exchange.sendResponseHeaders(302, -1);
      exchange.close();
    });
    authorizationServer.start();
    authorize = "http://127.0.0.1:" + authorizationServer.getAddress().getPort() + "/authorize";
  }

  @AfterEach
  void stop() {
    authorizationServer.stop(0);
  }

  @Test
  void theBrowserIsShownTheAddressAndItsRedirectComesBackToALoopbackListener() throws Exception {
    java.io.PipedInputStream shownToThePerson = new java.io.PipedInputStream(1 << 16);
    PrintStream err = new PrintStream(new java.io.PipedOutputStream(shownToThePerson), true, StandardCharsets.UTF_8);
    Cli cli = new Cli(new PrintStream(new ByteArrayOutputStream()), err, new BufferedReader(new StringReader("")), Map.of(), true);
    McpOAuth.UserAgent browser = OAuthUserAgents.browser(cli);
    URI redirect = browser.redirectUri();
    assertThat(redirect.getHost()).isEqualTo("127.0.0.1");
    URI authorization = URI.create(authorize + "?state=s-1&redirect_uri=" + java.net.URLEncoder.encode(redirect.toString(), StandardCharsets.UTF_8));

    CompletableFuture<URI> answered = CompletableFuture.supplyAsync(() -> {
      try {
        return browser.authorize(authorization);
      } catch (IOException | InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    // the person: opens the printed address in a browser, which follows the redirect to the listener
    String shown = lineStartingWith(new BufferedReader(new java.io.InputStreamReader(shownToThePerson, StandardCharsets.UTF_8)), authorize);
    HttpClient person = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NORMAL).build();
    HttpResponse<String> page = person.send(HttpRequest.newBuilder(URI.create(shown)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(page.body()).contains("you may close this window");
    URI back = answered.get(30, TimeUnit.SECONDS);
    assertThat(back.toString()).startsWith(redirect.toString()).contains("code=c-42").contains("state=s-1");
    // the listener is gone once answered
    assertThatThrownBy(() -> HttpClient.newHttpClient().send(HttpRequest.newBuilder(redirect).build(), HttpResponse.BodyHandlers.discarding()))
        .isInstanceOf(IOException.class);
  }

  @Test
  void followTakesTheImmediateRedirectAndRefusesAnythingElse() throws Exception {
    McpOAuth.UserAgent follow = OAuthUserAgents.follow();
    URI redirect = follow.redirectUri();
    URI back = follow.authorize(URI.create(authorize + "?state=s-2&redirect_uri=" + java.net.URLEncoder.encode(redirect.toString(), StandardCharsets.UTF_8)));
    assertThat(back.getRawQuery()).isEqualTo("code=c-42&state=s-2");
    assertThatThrownBy(() -> follow.authorize(URI.create(authorize.replace("/authorize", "/login")))).isInstanceOf(IOException.class)
        .hasMessageContaining("instead of redirecting at once").hasMessageContaining("--authorize browser");
    assertThatThrownBy(() -> follow.authorize(URI.create(authorize + "?state=s-3&redirect_uri=http%3A%2F%2Fevil.example%2Fcb")))
        .isInstanceOf(IOException.class).hasMessageContaining("elsewhere");
  }

  /** The first line {@code reader} gives that starts with {@code prefix}: read as it is printed. */
  private static String lineStartingWith(BufferedReader reader, String prefix) throws IOException {
    StringBuilder before = new StringBuilder();
    for (String line = reader.readLine(); line != null; line = reader.readLine()) {
      if (line.startsWith(prefix)) {
        return line.strip();
      }
      before.append(line).append('\n');
    }
    throw new AssertionError("no address shown: " + before);
  }
}
