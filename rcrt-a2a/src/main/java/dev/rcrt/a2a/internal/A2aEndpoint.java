package dev.rcrt.a2a.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import dev.rcrt.http.internal.BodyFirst;
import dev.rcrt.http.internal.ErrorBody;
import dev.rcrt.http.internal.HttpListener;
import dev.rcrt.http.internal.RequestGate;
import dev.rcrt.http.internal.RequestRate;
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
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The HTTP side of the A2A server, on its own {@link HttpListener} (embedded Tomcat): {@code GET
 * /.well-known/agent-card.json} (the default agent's card), {@code GET
 * /a2a/<agent_id>/.well-known/agent-card.json} and JSON-RPC at {@code POST /a2a/<agent_id>}, with
 * {@code message/stream} and {@code tasks/resubscribe} answered as server-sent events.
 *
 * <p>Every request passes the {@link RequestGate} first ({@code Host}, {@code Origin}, the bearer
 * token for JSON-RPC), and its body is read whole without a thread ({@link BodyFirst}: 413 past the
 * gate's cap, 408 past the request timeout); then text that is not JSON is {@code -32700}, JSON that is
 * not a request {@code -32600}, an unknown method {@code -32601}, bad params {@code -32602}: never a
 * Java message or stack trace.
 */
public final class A2aEndpoint implements AutoCloseable {
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


  private final HttpListener listener;
  private final Agents agents;
  private final RequestRate rate;
  private final RequestGate gate;
  /** Set once the listener is up: a request that comes before is answered 503. */
  private volatile @Nullable URI base;

  /**
   * Listens on {@code host:port}.
   *
   * @param timeout how long a client may take to send a request's body, or leave its connection
   *     idle while it sends a request's head or takes in an answer (each event of a stream)
   * @param publicUrl where clients reach the server, for the cards; null for the address it listens on
   * @throws java.io.UncheckedIOException when the address cannot be bound
   */
  public A2aEndpoint(String host, int port, Duration timeout, @Nullable URI publicUrl, Agents agents, RequestGate gate, RequestRate rate) {
    this.agents = agents;
    this.rate = rate;
    this.gate = gate;
    this.listener = new HttpListener("the A2A server", host, port, timeout, ErrorBody.JSON_RPC,
        new BodyFirst("A2A", this::head, ErrorBody.JSON_RPC, gate.maxRequestBytes(), timeout), List.of());
    URI listening = listener.base();
    if (publicUrl == null && anyLocal(host)) {
      // 0.0.0.0 or :: is where the server listens, not an address a client can use
      listening = URI.create("http://" + machineName() + ":" + listening.getPort());
    }
    this.base = publicUrl != null ? publicUrl : listening;
  }

  private static boolean anyLocal(String host) {
    try {
      return java.net.InetAddress.getByName(host).isAnyLocalAddress();
    } catch (java.net.UnknownHostException e) {
      return false;
    }
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
    return java.util.Objects.requireNonNull(base);
  }

  /** Answers what needs no body (cards, refusals), or returns what serves a JSON-RPC request once its body is in. */
  private BodyFirst.@Nullable Body head(HttpServletRequest request, HttpServletResponse response) throws IOException {
    String refused = gate.refusal(request);
    if (refused != null) {
      plain(response, 403, refused);
      return null;
    }
    URI base = this.base;
    if (base == null) { // between the listener's start and the end of this constructor
      response.setHeader("Retry-After", "1");
      plain(response, 503, "the A2A server is starting; try again shortly");
      return null;
    }
    String path = BodyFirst.path(request);
    String method = request.getMethod();
    if ("GET".equals(method) && (path.equals(CARD) || path.startsWith(AGENTS) && path.endsWith(CARD))) {
      String id = path.equals(CARD) ? null : path.substring(AGENTS.length(), path.length() - CARD.length());
      Served agent = agents.find(id, base, true);
      if (agent == null) {
        plain(response, 404, "no agent here: " + (id == null ? "this server serves no agent" : "no trusted agent record '" + id + "'"));
        return null;
      }
      json(response, 200, Utils.OBJECT_MAPPER.writeValueAsBytes(agent.card()));
      return null;
    }
    if (!path.startsWith(AGENTS) || path.length() == AGENTS.length() || path.indexOf('/', AGENTS.length()) >= 0) {
      plain(response, 404, "not found: cards are at " + CARD + " and " + AGENTS + "<agent_id>" + CARD);
      return null;
    }
    if (!"POST".equals(method)) {
      response.setHeader("Allow", "POST");
      plain(response, 405, "JSON-RPC requests are POSTed");
      return null;
    }
    if (!gate.authorized(request)) {
      response.setHeader("WWW-Authenticate", "Bearer");
      plain(response, 401, "this A2A server takes a bearer token (Authorization: Bearer …)");
      return null;
    }
    String id = path.substring(AGENTS.length());
    return body -> {
      if (body == null) {
        error(response, 413, null, new InvalidRequestError(null, "Invalid Request: the body is larger than " + gate.maxRequestBytes() + " bytes", null));
        return;
      }
      Served agent = agents.find(id, base, false);
      if (agent == null) {
        plain(response, 404, "no trusted agent record '" + id + "'");
        return;
      }
      rpc(request, response, body, agent.handler());
    };
  }

  /** One JSON-RPC request, answered by the SDK's handler (as the SDK's reference servers route it). */
  private void rpc(HttpServletRequest http, HttpServletResponse out, byte[] body, JSONRPCHandler handler) throws IOException {
    JsonNode node;
    try {
      node = RcrtJson.parse(new String(body, StandardCharsets.UTF_8));
    } catch (ValidationException e) {
      error(out, 200, null, new JSONParseError("Parse error: " + e.getMessage()));
      return;
    }
    if (!node.isObject()) {
      error(out, 200, null, new InvalidRequestError(null, "Invalid Request: an A2A request is one JSON-RPC object", null));
      return;
    }
    String method = node.path("method").asText("");
    if (SendMessageRequest.METHOD.equals(method) || SendStreamingMessageRequest.METHOD.equals(method)) {
      long retryAfter = rate.take(http); // a message starts a model run: those are what a client is limited in
      if (retryAfter > 0) {
        out.setHeader("Retry-After", Long.toString(retryAfter));
        plain(out, 429, "too many messages from this address; try again in " + retryAfter + " s");
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
        stream(out, events, gone);
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
      json(out, 200, Utils.OBJECT_MAPPER.writeValueAsBytes(response));
    } catch (JsonProcessingException e) {
      error(out, 200, idOf(e), mapped(e));
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
   * completes or the caller goes; a write that fails, or that the caller leaves untaken for the
   * request timeout (the listener's), sets {@code gone}, which the task's reader ({@link TaskStream})
   * watches.
   */
  private static void stream(HttpServletResponse response, Flow.Publisher<SendStreamingMessageResponse> events,
      java.util.concurrent.atomic.AtomicBoolean gone) throws IOException {
    response.setStatus(200);
    response.setContentType("text/event-stream"); // UTF-8 by definition (HTML, server-sent events)
    response.setHeader("Cache-Control", "no-cache");
    ServletOutputStream out = response.getOutputStream();
    response.flushBuffer();
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
          out.write(event);
          out.flush();
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

  private static void error(HttpServletResponse response, int status, @Nullable Object id, JSONRPCError error) throws IOException {
    json(response, status, Utils.OBJECT_MAPPER.writeValueAsBytes(new JSONRPCErrorResponse(id, error)));
  }

  private static void json(HttpServletResponse response, int status, byte[] body) throws IOException {
    response.setStatus(status);
    response.setContentType("application/json");
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
  }

  private static void plain(HttpServletResponse response, int status, String text) throws IOException {
    json(response, status, ErrorBody.PLAIN.json(status, text).getBytes(StandardCharsets.UTF_8));
  }

  /** Stops listening; requests under way are cut. */
  @Override
  public void close() {
    listener.close();
  }

}
