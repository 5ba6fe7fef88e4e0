package dev.rcrt.mcp.internal;

import dev.rcrt.http.internal.HttpListener;

import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.testing.TestClock;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.DefaultServerTransportSecurityValidator;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The server's own streamable-HTTP transport on a loopback port, with the official SDK's sync
 * server on it (what {@code server} adds: tools and the like), on {@code clock} and {@code store}:
 * 1 s {@code retry}, no hold, at most 3 ended streams and {@code maxSessions} sessions kept. The
 * test closes it.
 */
final class TransportFixture implements AutoCloseable {
  final HttpClient http = HttpClient.newHttpClient();
  final StreamableHttp transport;
  private final McpSyncServer server;
  private final HttpListener listener;

  TransportFixture(TestClock clock, BreadcrumbStore store, int maxSessions, UnaryOperator<McpServer.SyncSpecification<?>> server) {
    this(clock, store, maxSessions, StreamableHttp.HANDLER_THREADS, StreamableHttp.HANDLER_QUEUE, server);
  }

  /** With {@code handlerThreads} handlers at once and at most {@code handlerQueue} requests waiting for one. */
  TransportFixture(TestClock clock, BreadcrumbStore store, int maxSessions, int handlerThreads, int handlerQueue,
      UnaryOperator<McpServer.SyncSpecification<?>> server) {
    this.transport = new StreamableHttp(StreamableHttp.ENDPOINT,
        DefaultServerTransportSecurityValidator.builder().allowedHosts(List.of("127.0.0.1:*")).allowedOrigins(List.of()).build(), clock,
        Duration.ofSeconds(1), null, Duration.ofMinutes(1), store, 3, maxSessions, handlerThreads, handlerQueue);
    this.server = server.apply(transport.syncServer().serverInfo("fixture", "1")).build();
    this.listener = new HttpListener("the MCP server", "127.0.0.1", 0, Duration.ofSeconds(30), dev.rcrt.http.internal.ErrorBody.JSON_RPC,
        transport, List.of(new JsonRpcBodyFilter()));
  }

  /** Initializes a session over the wire; its id. */
  String initialize() throws IOException, InterruptedException {
    return http.send(request(null).POST(HttpRequest.BodyPublishers.ofString(
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
            + "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}")).build(), HttpResponse.BodyHandlers.ofString())
        .headers().firstValue("Mcp-Session-Id").orElseThrow();
  }

  /** A ping of {@code session}: the response (an SSE stream with the answer, or a 404). */
  HttpResponse<String> ping(String session, int id) throws IOException, InterruptedException {
    return http.send(request(session).POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"ping\"}")).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** A request to the endpoint, of {@code session} unless null, accepting JSON and SSE. */
  HttpRequest.Builder request(String session) {
    HttpRequest.Builder b = HttpRequest.newBuilder(listener.base().resolve(StreamableHttp.ENDPOINT))
        .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream");
    return session == null ? b : b.header("Mcp-Session-Id", session);
  }

  @Override
  public void close() {
    server.close();
    listener.close();
  }
}
