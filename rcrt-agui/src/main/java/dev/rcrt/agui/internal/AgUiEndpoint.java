package dev.rcrt.agui.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.NotFoundException;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import dev.rcrt.http.internal.BodyFirst;
import dev.rcrt.http.internal.ErrorBody;
import dev.rcrt.http.internal.HttpListener;
import dev.rcrt.http.internal.RequestGate;
import dev.rcrt.http.internal.RequestRate;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The AG-UI HTTP endpoint, on its own {@link HttpListener} (embedded Tomcat): {@code POST /agui/<agent_id>} with a {@code
 * RunAgentInput} answers {@code text/event-stream}, one AG-UI event per SSE event ({@code id:} and
 * {@code data:} lines), as {@code @ag-ui/client}'s {@code HttpAgent} reads it. A request with {@code
 * Last-Event-ID} gets the events after that one. Every request passes the {@link RequestGate} first
 * (Host, Origin, bearer token), and its body is read whole without a thread ({@link BodyFirst}: 413
 * past the cap, 408 past the request timeout); a client that leaves an event untaken for the
 * request timeout is cut off. A request that cannot be run is a JSON {@code {"error": …}} with
 * 400, 404 or 409 before any event; a failure of the server is a 500 naming only a reference to its
 * log line.
 */
public final class AgUiEndpoint implements AutoCloseable {
  static final String AGENTS = "/agui/";
  /**
   * The most streams (runs followed, live updates) held at once: each holds one of Tomcat's 200
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

  private final HttpListener listener;
  private final RequestRate rate;
  private final java.util.concurrent.Semaphore streams = new java.util.concurrent.Semaphore(MAX_STREAMS);
  private final RequestGate gate;
  private final Runs runs;
  private final int maxMessageChars;
  private final @Nullable Console console;
  private final @Nullable Changes changes;

  /**
   * Listens on {@code host:port}.
   *
   * @param timeout how long a client may take to send a request's body, or leave its connection
   *     idle while it sends a request's head or takes in an answer (each event of a stream)
   * @param console the console's API and page, or null to serve the AG-UI endpoint alone
   * @param changes the console's live updates ({@code GET /api/events}), or null without a console
   * @throws java.io.UncheckedIOException when the address cannot be bound
   */
  public AgUiEndpoint(String host, int port, Duration timeout, RequestGate gate, RequestRate rate, Runs runs, int maxMessageChars,
      @Nullable Console console, @Nullable Changes changes) {
    this.gate = gate;
    this.rate = rate;
    this.runs = runs;
    this.maxMessageChars = maxMessageChars;
    this.console = console;
    this.changes = changes;
    this.listener = new HttpListener("the AG-UI server", host, port, timeout, ErrorBody.PLAIN,
        new BodyFirst("AG-UI", this::head, ErrorBody.PLAIN, gate.maxRequestBytes(), timeout), List.of());
  }

  /** Where clients reach the server, such as {@code http://127.0.0.1:8810}. */
  public URI base() {
    return listener.base();
  }

  /** Answers what needs no body, or returns what serves a POST once its body is in. */
  private BodyFirst.@Nullable Body head(HttpServletRequest request, HttpServletResponse response) throws IOException {
    String refused = gate.refusal(request);
    if (refused != null) {
      plain(response, 403, refused);
      return null;
    }
    String path = BodyFirst.path(request);
    if (console != null && !path.startsWith(AGENTS)) {
      return console(request, response, path, console);
    }
    if (!path.startsWith(AGENTS) || path.length() == AGENTS.length() || path.indexOf('/', AGENTS.length()) >= 0) {
      plain(response, 404, "not found: AG-UI runs are POSTed to " + AGENTS + "<agent_id>");
      return null;
    }
    if (!"POST".equals(request.getMethod())) {
      response.setHeader("Allow", "POST");
      plain(response, 405, "an AG-UI RunAgentInput is POSTed");
      return null;
    }
    if (refusedToken(request, response) || limited(request, response)) {
      return null;
    }
    String agentId = path.substring(AGENTS.length());
    String lastEventId = request.getHeader("Last-Event-ID");
    return body -> {
      if (body == null) {
        tooLarge(response);
        return;
      }
      RunInput input;
      try {
        input = RunInput.parse(body, maxMessageChars);
      } catch (ValidationException e) {
        plain(response, 400, String.valueOf(e.getMessage()));
        return;
      }
      run(response, agentId, input, lastEventId);
    };
  }

  /** Follows the run {@code input} asks for, as a stream, while a stream is free. */
  private void run(HttpServletResponse response, String agentId, RunInput input, @Nullable String lastEventId) throws IOException {
    Stream stream = new Stream(response);
    if (!streams.tryAcquire()) {
      busy(response);
      return;
    }
    try {
      runs.run(agentId, input, lastEventId, stream);
      stream.open(); // a stream with nothing more to send (the client had every event) is empty, not absent
    } catch (NotFoundException e) {
      if (!stream.started) {
        plain(response, 404, String.valueOf(e.getMessage()));
      }
    } catch (ValidationException e) {
      if (!stream.started) {
        plain(response, 400, String.valueOf(e.getMessage()));
      }
    } catch (IllegalStateException e) {
      if (!stream.started) {
        plain(response, 409, String.valueOf(e.getMessage()));
      }
    } finally {
      streams.release();
    }
  }

  /** The answer when every stream a server may hold at once is taken: 503, come back in a few seconds. */
  private static void busy(HttpServletResponse response) throws IOException {
    response.setHeader("Retry-After", "5");
    plain(response, 503, "this server follows " + MAX_STREAMS + " streams already; try again shortly");
  }

  /**
   * The console: its page (public: it holds no data), and its API (behind the token, as the AG-UI
   * endpoint); answers a GET, or returns what serves a POST once its body is in.
   */
  private BodyFirst.@Nullable Body console(HttpServletRequest request, HttpServletResponse response, String path, Console console)
      throws IOException {
    String method = request.getMethod();
    if (!path.startsWith("/api/")) {
      Console.Asset asset = "GET".equals(method) ? Console.asset(path) : null;
      if (asset == null) {
        plain(response, 404, "not found: the console is at /, its API under /api/, AG-UI runs at " + AGENTS + "<agent_id>");
        return null;
      }
      byte[] bytes = asset.bytes();
      response.setStatus(200);
      response.setContentType(asset.type());
      response.setHeader("Content-Security-Policy", "default-src 'self'; connect-src 'self'; img-src 'self' data:");
      response.setHeader("X-Content-Type-Options", "nosniff");
      response.setContentLength(bytes.length);
      response.getOutputStream().write(bytes);
      return null;
    }
    if (refusedToken(request, response)) {
      return null;
    }
    if ("GET".equals(method)) {
      answered(response, () -> {
        if (path.equals("/api/events") && changes != null) {
          if (!streams.tryAcquire()) {
            busy(response);
            return;
          }
          try {
            changes.follow(new Stream(response));
          } finally {
            streams.release();
          }
          return;
        }
        json(response, 200, RcrtJson.write(console.get(path, query(request))));
      });
      return null;
    }
    if (!"POST".equals(method)) {
      response.setHeader("Allow", "GET, POST");
      plain(response, 405, "the console's API takes GET and POST");
      return null;
    }
    if (limited(request, response)) {
      return null;
    }
    return body -> answered(response, () -> {
      if (body == null) {
        tooLarge(response);
        return;
      }
      com.fasterxml.jackson.databind.JsonNode json;
      try {
        json = RcrtJson.parse(new String(body, StandardCharsets.UTF_8));
      } catch (RuntimeException e) {
        plain(response, 400, "the body is not JSON");
        return;
      }
      json(response, 200, RcrtJson.write(console.post(path, json)));
    });
  }

  /** A console answer that may be refused: {@link NotFoundException} 404, {@link ValidationException} 400, {@link Console.Forbidden} 403. */
  @FunctionalInterface
  private interface Answer {
    void run() throws IOException;
  }

  private static void answered(HttpServletResponse response, Answer answer) throws IOException {
    try {
      answer.run();
    } catch (NotFoundException e) {
      plain(response, 404, String.valueOf(e.getMessage()));
    } catch (ValidationException e) {
      plain(response, 400, String.valueOf(e.getMessage()));
    } catch (Console.Forbidden e) {
      plain(response, 403, String.valueOf(e.getMessage()));
    }
  }

  /** Whether the request lacks the bearer token: then it was answered 401. */
  private boolean refusedToken(HttpServletRequest request, HttpServletResponse response) throws IOException {
    if (gate.authorized(request)) {
      return false;
    }
    response.setHeader("WWW-Authenticate", "Bearer");
    plain(response, 401, "this server takes a bearer token (Authorization: Bearer …)");
    return true;
  }

  /** Whether the client's address sent more POSTs this minute than it may: then it was answered 429. */
  private boolean limited(HttpServletRequest request, HttpServletResponse response) throws IOException {
    long retryAfter = rate.take(request);
    if (retryAfter <= 0) {
      return false;
    }
    response.setHeader("Retry-After", Long.toString(retryAfter));
    plain(response, 429, "too many requests from this address; try again in " + retryAfter + " s");
    return true;
  }

  /** Answers a body past the cap: 413. */
  private void tooLarge(HttpServletResponse response) throws IOException {
    plain(response, 413, "the body is larger than " + gate.maxRequestBytes() + " bytes");
  }

  /** The decoded parameters of the request's query; of a repeated one, the first. */
  private static java.util.Map<String, String> query(HttpServletRequest request) {
    java.util.Map<String, String> out = new java.util.HashMap<>();
    String raw = request.getQueryString();
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
    private final HttpServletResponse response;
    private @Nullable ServletOutputStream out;
    boolean started;

    Stream(HttpServletResponse response) {
      this.response = response;
    }

    @Override
    public void send(@Nullable String id, ObjectNode event) throws IOException {
      byte[] bytes = ((id == null ? "" : "id: " + id + "\n") + "data: " + RcrtJson.write(event) + "\n\n").getBytes(StandardCharsets.UTF_8);
      ServletOutputStream body = open();
      body.write(bytes);
      body.flush();
    }

    /** Sends the stream's headers, once. */
    ServletOutputStream open() throws IOException {
      if (out == null) {
        response.setStatus(200);
        response.setContentType("text/event-stream"); // UTF-8 by definition (HTML, server-sent events)
        response.setHeader("Cache-Control", "no-cache");
        started = true;
        out = response.getOutputStream();
        response.flushBuffer();
      }
      return out;
    }
  }

  private static void plain(HttpServletResponse response, int status, String text) throws IOException {
    json(response, status, ErrorBody.PLAIN.json(status, text));
  }

  private static void json(HttpServletResponse response, int status, String text) throws IOException {
    byte[] body = text.getBytes(StandardCharsets.UTF_8);
    response.setStatus(status);
    response.setContentType("application/json");
    response.setHeader("Cache-Control", "no-store");
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
  }

  /** Stops listening; requests under way are cut. */
  @Override
  public void close() {
    listener.close();
  }
}
