package dev.rcrt.a2a.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import dev.rcrt.core.spi.Throwables;
import io.a2a.server.ServerCallContext;
import io.a2a.server.auth.UnauthenticatedUser;
import io.a2a.spec.CancelTaskRequest;
import io.a2a.spec.DeleteTaskPushNotificationConfigRequest;
import io.a2a.spec.GetTaskPushNotificationConfigRequest;
import io.a2a.spec.ListTaskPushNotificationConfigRequest;
import io.a2a.spec.SetTaskPushNotificationConfigRequest;
import io.a2a.spec.GetAuthenticatedExtendedCardRequest;
import io.a2a.spec.GetTaskRequest;
import io.a2a.spec.IdJsonMappingException;
import io.a2a.spec.InvalidParamsError;
import io.a2a.spec.InvalidParamsJsonMappingException;
import io.a2a.spec.InvalidRequestError;
import io.a2a.spec.JSONParseError;
import io.a2a.spec.JSONRPCError;
import io.a2a.spec.JSONRPCErrorResponse;
import io.a2a.spec.JSONRPCResponse;
import io.a2a.spec.MethodNotFoundError;
import io.a2a.spec.MethodNotFoundJsonMappingException;
import io.a2a.spec.NonStreamingJSONRPCRequest;
import io.a2a.spec.SendMessageRequest;
import io.a2a.spec.SendStreamingMessageRequest;
import io.a2a.spec.SendStreamingMessageResponse;
import io.a2a.spec.StreamingJSONRPCRequest;
import io.a2a.spec.TaskResubscriptionRequest;
import io.a2a.spec.UnsupportedOperationError;
import io.a2a.transport.jsonrpc.handler.JSONRPCHandler;
import io.a2a.util.Utils;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP side of the A2A server, on the JDK's HTTP server: {@code GET
 * /.well-known/agent-card.json} (the default agent's card), {@code GET
 * /a2a/<agent_id>/.well-known/agent-card.json} and JSON-RPC at {@code POST /a2a/<agent_id>}, with
 * {@code message/stream} and {@code tasks/resubscribe} answered as server-sent events.
 *
 * <p>Every request passes the {@link RequestGate} first ({@code Host}, {@code Origin}, the bearer
 * token for JSON-RPC, the body's size); then text that is not JSON is {@code -32700}, JSON that is
 * not a request {@code -32600}, an unknown method {@code -32601}, bad params {@code -32602}: never a
 * Java message or stack trace.
 */
public final class A2aEndpoint implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(A2aEndpoint.class);
  private static final String CARD = "/.well-known/agent-card.json";
  private static final String AGENTS = "/a2a/";

  /** One agent as served now: its card (with this endpoint's URL) and the SDK's JSON-RPC handler on its records. */
  public record Served(io.a2a.spec.AgentCard card, JSONRPCHandler handler) {}

  /** Finds the agent a path names; null when there is none (404). */
  public interface Agents {
    /**
     * @param agentId the id in the path, or null for the default agent
     * @param base this endpoint's base URL, for the card's {@code url}
     * @param skills whether the card lists the agent's tools as skills (for a card request; a
     *     JSON-RPC request needs only the agent and its capabilities)
     */
    @Nullable Served find(@Nullable String agentId, URI base, boolean skills);
  }


  private final HttpServer server;
  private final Agents agents;
  private final RequestRate rate;
  private final RequestGate gate;
  private final RequestDeadline requests;
  private final URI base;

  /**
   * Listens on {@code host:port} and serves with {@code requests}: the server's pool behind a {@link
   * RequestDeadline}, so that a client that sends its request slowly, or reads a stream slowly, is
   * cut off, not served.
   */
  public A2aEndpoint(String host, int port, @Nullable URI publicUrl, Agents agents, RequestGate gate, RequestDeadline requests,
      RequestRate rate) throws IOException {
    this.agents = agents;
    this.rate = rate;
    this.gate = gate;
    this.requests = requests;
    this.server = HttpServer.create(new InetSocketAddress(host, port), 64);
    server.setExecutor(requests);
    server.createContext("/", this::handle);
    server.start();
    String shown = host.contains(":") ? "[" + host + "]" : host;
    if (publicUrl == null && server.getAddress().getAddress().isAnyLocalAddress()) {
      shown = machineName(); // 0.0.0.0 or :: is where the server listens, not an address a client can use
    }
    this.base = publicUrl != null ? publicUrl : URI.create("http://" + shown + ":" + server.getAddress().getPort());
  }

  /** This machine's host name, for the cards of a server on every interface without a public URL. */
  private static String machineName() {
    try {
      return java.net.InetAddress.getLocalHost().getCanonicalHostName();
    } catch (java.net.UnknownHostException e) {
      return "localhost";
    }
  }

  /** Where clients reach the server, such as {@code http://127.0.0.1:8809}. */
  public URI base() {
    return base;
  }

  /** Serves one exchange; a failure of the server itself is a 500 that names only a reference to its log line. */
  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      try {
        serve(exchange);
      } catch (IOException e) {
        LOG.debug("A2A exchange broke: {}", e.toString());
      } catch (Throwable t) {
        Throwables.rethrowIfFatal(t);
        String ref = java.util.UUID.randomUUID().toString().substring(0, 8);
        LOG.error("A2A request failed (ref {})", ref, t);
        if (exchange.getResponseCode() == -1) { // nothing sent yet
          error(exchange, 500, null, new io.a2a.spec.InternalError("the A2A server failed (ref " + ref + "; its log has the details)"));
        }
      }
    }
  }

  private void serve(HttpExchange exchange) throws IOException {
    if (!"POST".equals(exchange.getRequestMethod()) && withoutBody(exchange)) {
      // the whole request is in: only a POST's body is read, and one that comes with another method is drained when the
      // exchange closes, which the deadline still bounds
      RequestDeadline.received();
    }
    String refused = gate.refusal(exchange);
    if (refused != null) {
      plain(exchange, 403, refused);
      return;
    }
    String path = exchange.getRequestURI().getPath();
    String method = exchange.getRequestMethod();
    if ("GET".equals(method) && (path.equals(CARD) || path.startsWith(AGENTS) && path.endsWith(CARD))) {
      String id = path.equals(CARD) ? null : path.substring(AGENTS.length(), path.length() - CARD.length());
      Served agent = agents.find(id, base, true);
      if (agent == null) {
        plain(exchange, 404, "no agent here: " + (id == null ? "this server serves no agent" : "no trusted agent record '" + id + "'"));
        return;
      }
      json(exchange, 200, Utils.OBJECT_MAPPER.writeValueAsBytes(agent.card()));
      return;
    }
    if (!path.startsWith(AGENTS) || path.length() == AGENTS.length() || path.indexOf('/', AGENTS.length()) >= 0) {
      plain(exchange, 404, "not found: cards are at " + CARD + " and " + AGENTS + "<agent_id>" + CARD);
      return;
    }
    if (!"POST".equals(method)) {
      exchange.getResponseHeaders().set("Allow", "POST");
      plain(exchange, 405, "JSON-RPC requests are POSTed");
      return;
    }
    if (!gate.authorized(exchange)) {
      exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer");
      plain(exchange, 401, "this A2A server takes a bearer token (Authorization: Bearer …)");
      return;
    }

    byte[] body = gate.body(exchange);
    if (body != null) {
      RequestDeadline.received();
    }
    if (body == null) {
      error(exchange, 413, null, new InvalidRequestError(null, "Invalid Request: the body is larger than " + gate.maxRequestBytes() + " bytes", null));
      gate.discardRest(exchange);
      return;
    }
    Served agent = agents.find(path.substring(AGENTS.length()), base, false);
    if (agent == null) {
      plain(exchange, 404, "no trusted agent record '" + path.substring(AGENTS.length()) + "'");
      return;
    }
    rpc(exchange, body, agent.handler());
  }

  /** Whether the request says it has no body: no {@code Transfer-Encoding}, and no {@code Content-Length} or zero. */
  private static boolean withoutBody(HttpExchange exchange) {
    String length = exchange.getRequestHeaders().getFirst("Content-Length");
    return exchange.getRequestHeaders().getFirst("Transfer-Encoding") == null && (length == null || length.strip().equals("0"));
  }

  /** One JSON-RPC request, answered by the SDK's handler (as the SDK's reference servers route it). */
  private void rpc(HttpExchange exchange, byte[] body, JSONRPCHandler handler) throws IOException {
    JsonNode node;
    try {
      node = RcrtJson.parse(new String(body, StandardCharsets.UTF_8));
    } catch (ValidationException e) {
      error(exchange, 200, null, new JSONParseError("Parse error: " + e.getMessage()));
      return;
    }
    if (!node.isObject()) {
      error(exchange, 200, null, new InvalidRequestError(null, "Invalid Request: an A2A request is one JSON-RPC object", null));
      return;
    }
    String method = node.path("method").asText("");
    if (SendMessageRequest.METHOD.equals(method) || SendStreamingMessageRequest.METHOD.equals(method)) {
      long retryAfter = rate.take(exchange); // a message starts a model run: those are what a client is limited in
      if (retryAfter > 0) {
        exchange.getResponseHeaders().set("Retry-After", Long.toString(retryAfter));
        plain(exchange, 429, "too many messages from this address; try again in " + retryAfter + " s");
        return;
      }
    }
    boolean streaming = SendStreamingMessageRequest.METHOD.equals(method) || TaskResubscriptionRequest.METHOD.equals(method);
    java.util.concurrent.atomic.AtomicBoolean gone = new java.util.concurrent.atomic.AtomicBoolean();
    ServerCallContext context = new ServerCallContext(UnauthenticatedUser.INSTANCE,
        new HashMap<>(Map.of("method", method, TaskStream.CALLER_GONE, gone)), Set.of());
    try {
      if (streaming) {
        StreamingJSONRPCRequest<?> request = Utils.OBJECT_MAPPER.treeToValue(node, StreamingJSONRPCRequest.class);
        Flow.Publisher<SendStreamingMessageResponse> events = request instanceof SendStreamingMessageRequest r
            ? handler.onMessageSendStream(r, context)
            : handler.onResubscribeToTask((TaskResubscriptionRequest) request, context);
        stream(exchange, events, gone);
        return;
      }
      NonStreamingJSONRPCRequest<?> request = Utils.OBJECT_MAPPER.treeToValue(node, NonStreamingJSONRPCRequest.class);
      JSONRPCResponse<?> response;
      if (request instanceof SendMessageRequest r) {
        response = handler.onMessageSend(r, context);
      } else if (request instanceof GetTaskRequest r) {
        response = handler.onGetTask(r, context);
      } else if (request instanceof CancelTaskRequest r) {
        response = handler.onCancelTask(r, context);
      } else if (request instanceof GetAuthenticatedExtendedCardRequest r) {
        response = handler.onGetAuthenticatedExtendedCardRequest(r, context);
      } else if (request instanceof SetTaskPushNotificationConfigRequest r) {
        response = handler.setPushNotificationConfig(r, context);
      } else if (request instanceof GetTaskPushNotificationConfigRequest r) {
        response = handler.getPushNotificationConfig(r, context);
      } else if (request instanceof ListTaskPushNotificationConfigRequest r) {
        response = handler.listPushNotificationConfig(r, context);
      } else if (request instanceof DeleteTaskPushNotificationConfigRequest r) {
        response = handler.deletePushNotificationConfig(r, context);
      } else {
        response = new JSONRPCErrorResponse(request.getId(), new UnsupportedOperationError());
      }
      json(exchange, 200, Utils.OBJECT_MAPPER.writeValueAsBytes(response));
    } catch (JsonProcessingException e) {
      error(exchange, 200, idOf(e), mapped(e));
    }
  }

  private static @Nullable Object idOf(JsonProcessingException e) {
    if (e instanceof MethodNotFoundJsonMappingException m) {
      return m.getId();
    }
    if (e instanceof InvalidParamsJsonMappingException m) {
      return m.getId();
    }
    return e instanceof IdJsonMappingException m ? m.getId() : null;
  }

  /** The JSON-RPC error for a request the SDK could not read, in its words, without Java's. */
  private static JSONRPCError mapped(JsonProcessingException e) {
    if (e instanceof MethodNotFoundJsonMappingException) {
      return new MethodNotFoundError();
    }
    if (e instanceof InvalidParamsJsonMappingException) {
      return new InvalidParamsError(null, "Invalid params: they do not have the shape A2A 0.3.0 gives this method", null);
    }
    return new InvalidRequestError(null, "Invalid Request: not an A2A 0.3.0 JSON-RPC request (jsonrpc \"2.0\", id, method, params)", null);
  }

  /**
   * Writes the events as server-sent events, one {@code data:} line each, until the publisher
   * completes or the caller goes; a write that fails, or that the caller takes longer than the
   * request timeout to read ({@link RequestDeadline#write}), sets {@code gone}, which the task's
   * reader ({@link TaskStream}) watches.
   */
  private void stream(HttpExchange exchange, Flow.Publisher<SendStreamingMessageResponse> events, java.util.concurrent.atomic.AtomicBoolean gone)
      throws IOException {
    exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
    exchange.getResponseHeaders().set("Cache-Control", "no-cache");
    exchange.sendResponseHeaders(200, 0);
    OutputStream out = exchange.getResponseBody();
    CompletableFuture<Void> done = new CompletableFuture<>();
    events.subscribe(new Flow.Subscriber<>() {
      private Flow.@Nullable Subscription subscription;

      @Override
      public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        s.request(1);
      }

      @Override
      public void onNext(SendStreamingMessageResponse item) {
        try {
          byte[] event = ("data: " + Utils.OBJECT_MAPPER.writeValueAsString(item) + "\n\n").getBytes(StandardCharsets.UTF_8);
          requests.write(() -> {
            out.write(event);
            out.flush();
          });
          java.util.Objects.requireNonNull(subscription).request(1);
        } catch (IOException e) {
          gone.set(true); // the caller went away: the task's reader stops at its next look
          java.util.Objects.requireNonNull(subscription).cancel();
          done.complete(null);
        }
      }

      @Override
      public void onError(Throwable t) {
        done.complete(null);
      }

      @Override
      public void onComplete() {
        done.complete(null);
      }
    });
    try {
      done.get(1, TimeUnit.DAYS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      // ends the stream
    }
  }

  private static void error(HttpExchange exchange, int status, @Nullable Object id, JSONRPCError error) throws IOException {
    json(exchange, status, Utils.OBJECT_MAPPER.writeValueAsBytes(new JSONRPCErrorResponse(id, error)));
  }

  private static void json(HttpExchange exchange, int status, byte[] body) throws IOException {
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, body.length);
    exchange.getResponseBody().write(body);
  }

  private static void plain(HttpExchange exchange, int status, String text) throws IOException {
    byte[] body = RcrtJson.write(RcrtJson.object().put("error", text)).getBytes(StandardCharsets.UTF_8);
    json(exchange, status, body);
  }

  /** Stops listening; exchanges under way get a second to finish. The request pool is the caller's to stop. */
  @Override
  public void close() {
    server.stop(1);
  }

}
