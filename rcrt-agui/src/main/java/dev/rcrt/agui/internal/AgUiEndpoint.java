package dev.rcrt.agui.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.rcrt.a2a.internal.RequestDeadline;
import dev.rcrt.a2a.internal.RequestGate;
import dev.rcrt.a2a.internal.RequestRate;
import dev.rcrt.core.NotFoundException;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The AG-UI HTTP endpoint on the JDK's server: {@code POST /agui/<agent_id>} with a {@code
 * RunAgentInput} answers {@code text/event-stream}, one AG-UI event per SSE event ({@code id:} and
 * {@code data:} lines), as {@code @ag-ui/client}'s {@code HttpAgent} reads it. A request with {@code
 * Last-Event-ID} gets the events after that one. Every request passes the {@link RequestGate} first
 * (Host, Origin, bearer token, body cap) and is read within the {@link RequestDeadline}; each event
 * must be taken in within it too. A request that cannot be run is a JSON {@code {"error": …}} with
 * 400, 404 or 409 before any event; a failure of the server is a 500 naming only a reference to its
 * log line.
 */
public final class AgUiEndpoint implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AgUiEndpoint.class);
  static final String AGENTS = "/agui/";
  /**
   * The most streams (runs followed, live updates) held at once: each holds one of the server's 64
   * request threads while it lasts, and the rest stay for short requests.
   */
  public static final int MAX_STREAMS = 48;

  /** What the endpoint serves: a run's events for an input. */
  public interface Runs {
    /**
     * Starts or resumes what {@code input} asks of agent {@code agentId} and sends its events to
     * {@code out} until the run stands still, the client goes away or the stream's time is up.
     *
     * @throws NotFoundException when the agent is not served, or an interrupt names no call of it
     * @throws ValidationException when the input cannot be run (naming why)
     * @throws IllegalStateException when the thread's state refuses it (a 409)
     */
    void run(String agentId, RunInput input, @Nullable String lastEventId, Events out) throws IOException;
  }

  /** Where a run's events go. */
  public interface Events {
    /**
     * Sends one event; throws when the client went away or did not take it in time.
     *
     * @param id its SSE id, or null for an event a reconnecting client need not resume after (text
     *     as it streams, which the records tell again)
     */
    void send(@Nullable String id, ObjectNode event) throws IOException;
  }

  private final HttpServer server;
  private final RequestRate rate;
  private final java.util.concurrent.Semaphore streams = new java.util.concurrent.Semaphore(MAX_STREAMS);
  private final RequestGate gate;
  private final RequestDeadline requests;
  private final Runs runs;
  private final int maxMessageChars;
  private final @Nullable Console console;
  private final @Nullable Changes changes;
  private final URI base;

  /**
   * @param console the console's API and page, or null to serve the AG-UI endpoint alone
   * @param changes the console's live updates ({@code GET /api/events}), or null without a console
   */
  public AgUiEndpoint(String host, int port, RequestGate gate, RequestDeadline requests, RequestRate rate, Runs runs, int maxMessageChars,
      @Nullable Console console, @Nullable Changes changes) throws IOException {
    this.gate = gate;
    this.rate = rate;
    this.requests = requests;
    this.runs = runs;
    this.maxMessageChars = maxMessageChars;
    this.console = console;
    this.changes = changes;
    this.server = HttpServer.create(new InetSocketAddress(host, port), 64);
    server.setExecutor(requests);
    server.createContext("/", this::handle);
    server.start();
    String shown = host.contains(":") ? "[" + host + "]" : host;
    this.base = URI.create("http://" + shown + ":" + server.getAddress().getPort());
  }

  /** Where clients reach the server, such as {@code http://127.0.0.1:8810}. */
  public URI base() {
    return base;
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      try {
        serve(exchange);
      } catch (IOException e) {
        LOG.debug("AG-UI exchange broke: {}", e.toString());
      } catch (Throwable t) {
        dev.rcrt.core.spi.Throwables.rethrowIfFatal(t);
        String ref = UUID.randomUUID().toString().substring(0, 8);
        LOG.error("AG-UI request failed (ref {})", ref, t);
        if (exchange.getResponseCode() == -1) {
          plain(exchange, 500, "the AG-UI server failed (ref " + ref + "; its log has the details)");
        }
      }
    }
  }

  private void serve(HttpExchange exchange) throws IOException {
    String refused = gate.refusal(exchange);
    if (refused != null) {
      RequestDeadline.received();
      plain(exchange, 403, refused);
      return;
    }
    String path = exchange.getRequestURI().getPath();
    if (console != null && !path.startsWith(AGENTS)) {
      console(exchange, path, console);
      return;
    }
    if (!path.startsWith(AGENTS) || path.length() == AGENTS.length() || path.indexOf('/', AGENTS.length()) >= 0) {
      RequestDeadline.received();
      plain(exchange, 404, "not found: AG-UI runs are POSTed to " + AGENTS + "<agent_id>");
      return;
    }
    if (!"POST".equals(exchange.getRequestMethod())) {
      RequestDeadline.received();
      exchange.getResponseHeaders().set("Allow", "POST");
      plain(exchange, 405, "an AG-UI RunAgentInput is POSTed");
      return;
    }
    if (refusedToken(exchange)) {
      return;
    }
    byte[] body = postBody(exchange);
    if (body == null) {
      return;
    }
    String agentId = path.substring(AGENTS.length());
    RunInput input;
    try {
      input = RunInput.parse(body, maxMessageChars);
    } catch (ValidationException e) {
      plain(exchange, 400, String.valueOf(e.getMessage()));
      return;
    }
    String lastEventId = exchange.getRequestHeaders().getFirst("Last-Event-ID");
    Stream stream = new Stream(exchange);
    if (!streams.tryAcquire()) {
      busy(exchange);
      return;
    }
    try {
      runs.run(agentId, input, lastEventId, stream);
      stream.open(); // a stream with nothing more to send (the client had every event) is empty, not absent
    } catch (NotFoundException e) {
      if (!stream.started) {
        plain(exchange, 404, String.valueOf(e.getMessage()));
      }
    } catch (ValidationException e) {
      if (!stream.started) {
        plain(exchange, 400, String.valueOf(e.getMessage()));
      }
    } catch (IllegalStateException e) {
      if (!stream.started) {
        plain(exchange, 409, String.valueOf(e.getMessage()));
      }
    } finally {
      streams.release();
    }
  }

  /** The answer when every stream a server may hold at once is taken: 503, come back in a few seconds. */
  private static void busy(HttpExchange exchange) throws IOException {
    exchange.getResponseHeaders().set("Retry-After", "5");
    plain(exchange, 503, "this server follows " + MAX_STREAMS + " streams already; try again shortly");
  }

  /** The console: its page (public: it holds no data), and its API (behind the token, as the AG-UI endpoint). */
  private void console(HttpExchange exchange, String path, Console console) throws IOException {
    String method = exchange.getRequestMethod();
    if (!path.startsWith("/api/")) {
      RequestDeadline.received();
      Console.Asset asset = "GET".equals(method) ? Console.asset(path) : null;
      if (asset == null) {
        plain(exchange, 404, "not found: the console is at /, its API under /api/, AG-UI runs at " + AGENTS + "<agent_id>");
        return;
      }
      byte[] bytes = asset.bytes();
      exchange.getResponseHeaders().set("Content-Type", asset.type());
      exchange.getResponseHeaders().set("Content-Security-Policy", "default-src 'self'; connect-src 'self'; img-src 'self' data:");
      exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
      exchange.sendResponseHeaders(200, bytes.length);
      exchange.getResponseBody().write(bytes);
      return;
    }
    if (refusedToken(exchange)) {
      return;
    }
    try {
      if ("GET".equals(method)) {
        RequestDeadline.received();
        if (path.equals("/api/events") && changes != null) {
          if (!streams.tryAcquire()) {
            busy(exchange);
            return;
          }
          try {
            changes.follow(new Stream(exchange));
          } finally {
            streams.release();
          }
          return;
        }
        json(exchange, 200, RcrtJson.write(console.get(path, query(exchange))));
        return;
      }
      if (!"POST".equals(method)) {
        RequestDeadline.received();
        exchange.getResponseHeaders().set("Allow", "GET, POST");
        plain(exchange, 405, "the console's API takes GET and POST");
        return;
      }
      byte[] body = postBody(exchange);
      if (body == null) {
        return;
      }
      com.fasterxml.jackson.databind.JsonNode json;
      try {
        json = RcrtJson.parse(new String(body, StandardCharsets.UTF_8));
      } catch (RuntimeException e) {
        plain(exchange, 400, "the body is not JSON");
        return;
      }
      json(exchange, 200, RcrtJson.write(console.post(path, json)));
    } catch (NotFoundException e) {
      plain(exchange, 404, String.valueOf(e.getMessage()));
    } catch (ValidationException e) {
      plain(exchange, 400, String.valueOf(e.getMessage()));
    } catch (Console.Forbidden e) {
      plain(exchange, 403, String.valueOf(e.getMessage()));
    }
  }

  /** Whether the request lacks the bearer token: then it was answered 401. */
  private boolean refusedToken(HttpExchange exchange) throws IOException {
    if (gate.authorized(exchange)) {
      return false;
    }
    RequestDeadline.received();
    exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer");
    plain(exchange, 401, "this server takes a bearer token (Authorization: Bearer …)");
    return true;
  }

  /**
   * A POST's body, read within the request deadline, or null when the request was answered instead:
   * 429 when the client's address sent more POSTs this minute than it may, 413 past the body cap.
   */
  private byte @Nullable [] postBody(HttpExchange exchange) throws IOException {
    long retryAfter = rate.take(exchange);
    if (retryAfter > 0) {
      RequestDeadline.received();
      exchange.getResponseHeaders().set("Retry-After", Long.toString(retryAfter));
      plain(exchange, 429, "too many requests from this address; try again in " + retryAfter + " s");
      gate.discardRest(exchange);
      return null;
    }
    byte[] body = gate.body(exchange);
    RequestDeadline.received();
    if (body == null) {
      plain(exchange, 413, "the body is larger than " + gate.maxRequestBytes() + " bytes");
      gate.discardRest(exchange);
    }
    return body;
  }

  /** The decoded parameters of the request's query; of a repeated one, the first. */
  private static java.util.Map<String, String> query(HttpExchange exchange) {
    java.util.Map<String, String> out = new java.util.HashMap<>();
    String raw = exchange.getRequestURI().getRawQuery();
    if (raw != null) {
      for (String pair : raw.split("&")) {
        int eq = pair.indexOf('=');
        String name = java.net.URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
        String value = eq < 0 ? "" : java.net.URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
        out.putIfAbsent(name, value);
      }
    }
    return out;
  }

  /** The SSE answer of one exchange; its headers go with the first event. */
  private final class Stream implements Events {
    private final HttpExchange exchange;
    private @Nullable OutputStream out;
    boolean started;

    Stream(HttpExchange exchange) {
      this.exchange = exchange;
    }

    @Override
    public void send(@Nullable String id, ObjectNode event) throws IOException {
      byte[] bytes = ((id == null ? "" : "id: " + id + "\n") + "data: " + RcrtJson.write(event) + "\n\n").getBytes(StandardCharsets.UTF_8);
      requests.write(() -> {
        OutputStream body = open();
        body.write(bytes);
        body.flush();
      });
    }

    /** Sends the stream's headers, once. */
    OutputStream open() throws IOException {
      if (out == null) {
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
        exchange.getResponseHeaders().set("Cache-Control", "no-cache");
        exchange.sendResponseHeaders(200, 0);
        started = true;
        out = exchange.getResponseBody();
      }
      return out;
    }
  }

  private static void plain(HttpExchange exchange, int status, String text) throws IOException {
    json(exchange, status, RcrtJson.write(RcrtJson.object().put("error", text)));
  }

  private static void json(HttpExchange exchange, int status, String text) throws IOException {
    byte[] body = text.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    exchange.sendResponseHeaders(status, body.length);
    exchange.getResponseBody().write(body);
  }

  /** Stops listening; exchanges under way get a second to finish. */
  @Override
  public void close() {
    server.stop(1);
  }
}
