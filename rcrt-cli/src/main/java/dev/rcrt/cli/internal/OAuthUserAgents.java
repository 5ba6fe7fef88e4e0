package dev.rcrt.cli.internal;

import com.sun.net.httpserver.HttpServer;
import dev.rcrt.mcp.McpOAuth;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/** The ways a command completes an MCP server's OAuth authorization ({@code --authorize}). */
final class OAuthUserAgents {
  /** The longest a person has to finish an authorization in the browser. */
  static final Duration BROWSER_WAIT = Duration.ofMinutes(5);
  private static final URI NO_LISTENER = URI.create("http://127.0.0.1/callback");

  private OAuthUserAgents() {}

  /**
   * A person's browser: the authorization URL is printed on stderr, and the redirect comes back to
   * a listener on a loopback port of this machine (RFC 8252), started for each authorization and
   * stopped once it is answered or {@link #BROWSER_WAIT} passed.
   */
  static McpOAuth.UserAgent browser(Cli cli) {
    return new McpOAuth.UserAgent() {
      private @Nullable HttpServer server;
      private CompletableFuture<URI> answer = new CompletableFuture<>();

      @Override
      public synchronized URI redirectUri() throws IOException {
        if (server == null) {
          HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
          CompletableFuture<URI> a = new CompletableFuture<>();
          s.createContext("/callback", exchange -> {
            URI u = exchange.getRequestURI();
            byte[] page = "<!doctype html><title>rcrt</title><p>Done: you may close this window and return to the terminal.</p>"
                .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
            exchange.sendResponseHeaders(200, page.length);
            try (OutputStream out = exchange.getResponseBody()) {
              out.write(page);
            } finally { // only once the page is sent: the answer stops this listener
              a.complete(URI.create("http://127.0.0.1:" + s.getAddress().getPort() + u.getRawPath() + (u.getRawQuery() == null ? "" : "?" + u.getRawQuery())));
            }
          });
          s.start();
          server = s;
          answer = a;
        }
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/callback");
      }

      @Override
      public URI authorize(URI authorization) throws IOException, InterruptedException {
        CompletableFuture<URI> waiting;
        synchronized (this) {
          redirectUri();
          waiting = answer;
        }
        cli.note("to authorize, open this address in a browser (waiting up to " + BROWSER_WAIT.toMinutes() + " minutes):");
        cli.err().println(authorization);
        try {
          return waiting.get(BROWSER_WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException e) {
          throw new IOException("nobody completed it in the browser within " + BROWSER_WAIT.toMinutes() + " minutes");
        } catch (ExecutionException e) {
          throw new IOException("the redirect listener failed: " + e.getMessage());
        } finally {
          synchronized (this) {
            if (server != null) {
              server.stop(0);
              server = null;
            }
          }
        }
      }
    };
  }

  /**
   * No person: the authorization URL is fetched and its redirect, which must come at once, is taken
   * as the answer. For authorization servers that approve without a login (test servers, a host's
   * own automation); any other answer fails the authorization, naming what came back.
   */
  static McpOAuth.UserAgent follow() {
    HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).connectTimeout(Duration.ofSeconds(30)).build();
    return new McpOAuth.UserAgent() {
      @Override
      public URI redirectUri() {
        return NO_LISTENER;
      }

      @Override
      public URI authorize(URI authorization) throws IOException, InterruptedException {
        HttpResponse<Void> r = http.send(HttpRequest.newBuilder(authorization).timeout(Duration.ofSeconds(30)).GET().build(),
            HttpResponse.BodyHandlers.discarding());
        String location = r.headers().firstValue("Location").orElse(null);
        if (r.statusCode() / 100 != 3 || location == null) {
          throw new IOException("the authorization server answered " + r.statusCode() + " instead of redirecting at once; authorize in a browser"
              + " (--authorize browser)");
        }
        URI back = authorization.resolve(location);
        if (!back.toString().startsWith(NO_LISTENER.toString())) {
          throw new IOException("the authorization server redirected elsewhere than the redirect URI");
        }
        return back;
      }
    };
  }

  /** Nobody: any authorization fails, saying how to get one. */
  static McpOAuth.UserAgent none(String hint) {
    return new McpOAuth.UserAgent() {
      @Override
      public URI redirectUri() {
        return NO_LISTENER;
      }

      @Override
      public URI authorize(URI authorization) throws IOException {
        throw new IOException(hint);
      }
    };
  }
}
