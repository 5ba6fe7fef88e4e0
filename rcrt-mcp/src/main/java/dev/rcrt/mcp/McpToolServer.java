package dev.rcrt.mcp;

import dev.rcrt.http.internal.ErrorBody;
import dev.rcrt.http.internal.HttpListener;
import dev.rcrt.mcp.internal.StreamableHttp;
import dev.rcrt.mcp.internal.ToolCalls;
import dev.rcrt.mcp.internal.ToolCatalog;
import dev.rcrt.tools.ToolRunner;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.DefaultServerTransportSecurityValidator;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import org.jspecify.annotations.Nullable;

/**
 * The tools of a store served to any MCP client (Claude Desktop, IDEs, LangChain4j, Spring AI), on
 * the official MCP Java SDK, over stdio or streamable HTTP.
 *
 * <ul>
 *   <li>{@code tools/list} is the runner's live discovery: the tools whose records the trust policy
 *       trusts, with {@code inputSchema}, {@code outputSchema}, title and annotations from the
 *       record. Creating, updating or deleting a tool record updates the list at once and sends
 *       {@code notifications/tools/list_changed}.
 *   <li>{@code tools/call} runs through the {@link ToolRunner} like any call: validation, secrets,
 *       approval, trust and the {@code tool.request.v1}/{@code tool.response.v1} trail, with the MCP
 *       client as the requester ({@code agent:mcp:<clientInfo.name>}, which the default trust
 *       policy lets request tools). Results carry a text block and, for object outputs, {@code
 *       structuredContent}; tool failures are {@code isError: true} results; protocol errors are
 *       JSON-RPC errors. A {@code progressToken} gets progress against the tool's time limit every
 *       second; log notifications follow the level the client sets.
 *   <li>{@code resources/*}: every {@code Public} record (or {@code Team} too, {@link
 *       Builder#readableRecords}) that is not secret, as {@code
 *       rcrt://breadcrumbs/{id}} (its view as JSON), {@code rcrt://schemas/{schema_name}} and {@code
 *       rcrt://tags/{tag}} (listings); records of schema {@code mcp.resource.v1} that the trust
 *       policy trusts, as resources or templates of their own URI and content; {@code
 *       resources/subscribe} followed by {@code notifications/resources/updated} when the record
 *       changes, whichever process of a shared store changes it (docs/reference/mcp.md).
 *   <li>{@code prompts/*}: records of schema {@code mcp.prompt.v1} and every enabled agent
 *       record (one argument, {@code message}) that the trust policy trusts; {@code
 *       completion/complete} for their arguments and the resource templates' variables.
 *   <li>Streamable HTTP listens on {@code 127.0.0.1} unless told otherwise, checks {@code Origin}
 *       and {@code Host} against the address it serves (DNS-rebinding protection), and on any
 *       other address requires a bearer token.
 * </ul>
 *
 * <p>Close it to stop serving; the runner stays the caller's. Thread-safe.
 */
public final class McpToolServer implements AutoCloseable {
  private final McpSyncServer server;
  private final ToolCatalog catalog;
  private final dev.rcrt.mcp.internal.ResourceCatalog resources;
  private final dev.rcrt.mcp.internal.PromptCatalog prompts;
  private final ToolCalls calls;
  private final @Nullable HttpListener http;
  private final CountDownLatch ended;
  private final java.util.concurrent.atomic.AtomicBoolean closing = new java.util.concurrent.atomic.AtomicBoolean();

  /** How long a client may leave its connection idle while it sends a request or takes in an answer. */
  private static final java.time.Duration IDLE_TIMEOUT = java.time.Duration.ofSeconds(30);

  private McpToolServer(Builder b, McpServer.SyncSpecification<?> spec, @Nullable HttpListener http, CountDownLatch ended) {
    this.ended = ended;
    this.calls = new ToolCalls(b.runner, b.defaultLimit);
    this.catalog = new ToolCatalog(b.runner, calls);
    this.resources = new dev.rcrt.mcp.internal.ResourceCatalog(b.runner.store(), b.runner.policy(), b.readable);
    this.prompts = new dev.rcrt.mcp.internal.PromptCatalog(b.runner.store(), b.runner.policy(), resources);
    this.server =
        spec.serverInfo(b.name, b.version)
            .capabilities(McpSchema.ServerCapabilities.builder().tools(true).resources(true, true).prompts(true).completions().logging().build())
            .resourceTemplates(resources.builtinTemplates())
            .prompts(prompts.initial())
            .completions(prompts.completions(dev.rcrt.mcp.internal.ResourceCatalog.BUILTIN_TEMPLATES))
            .requestTimeout(b.requestTimeout)
            .validateToolInputs(false) // the tool chain validates, records the refusal, and says where
            .tools(catalog.initial())
            .build();
    this.http = http;
    catalog.attach(server);
    resources.attach(server);
    prompts.attach(server);
  }

  /** A builder serving the tools {@code runner} discovers and runs. */
  public static Builder builder(ToolRunner runner) {
    return new Builder(runner);
  }

  /** The streamable-HTTP endpoint, such as {@code http://127.0.0.1:8808/mcp}; null when serving stdio. */
  public @Nullable URI uri() {
    return http == null ? null : http.base().resolve(StreamableHttp.ENDPOINT);
  }

  /**
   * Blocks until the stdio client closes its end (the server's input reaches end of file), or
   * until {@link #close()}.
   *
   * @throws InterruptedException if the calling thread is interrupted while waiting
   */
  public void awaitClose() throws InterruptedException {
    ended.await();
  }

  /** Stops serving and releases the server's threads (and its HTTP listener); idempotent, and callable from any thread. */
  @Override
  public void close() {
    if (!closing.compareAndSet(false, true)) {
      return;
    }
    catalog.close();
    resources.close();
    prompts.close();
    server.closeGracefully();
    calls.close();
    if (http != null) {
      http.close();
    }
    ended.countDown();
  }

  /**
   * An MCP server to mount in a servlet container the host runs ({@link Builder#servlet}).
   *
   * @param server the server; close it when the container stops (the runner stays the caller's)
   * @param servlet the streamable-HTTP transport, to register with asynchronous support
   * @param filters to register before the servlet, in this order, with asynchronous support and for
   *     both {@code REQUEST} and {@code ASYNC} dispatches (a body is read without a thread, then the
   *     request is served in an {@code ASYNC} dispatch)
   */
  public record Mounted(McpToolServer server, jakarta.servlet.http.HttpServlet servlet, List<jakarta.servlet.Filter> filters)
      implements AutoCloseable {
    /** Closes {@link #server()}. */
    @Override
    public void close() {
      server.close();
    }
  }

  /** Builder for {@link McpToolServer}. Not thread-safe. */
  public static final class Builder {
    private final ToolRunner runner;
    private String name = "rcrt";
    private String version = "0.1.0";
    private Duration requestTimeout = Duration.ofMinutes(10);
    private Duration defaultLimit = Duration.ofSeconds(30);
    private dev.rcrt.core.Visibility readable = dev.rcrt.core.Visibility.PUBLIC;
    private @Nullable Duration sseHold;
    private Duration sseRetry = Duration.ofSeconds(1);

    private Builder(ToolRunner runner) {
      this.runner = Objects.requireNonNull(runner, "runner");
    }

    /** The {@code serverInfo} clients see; default {@code rcrt} {@code 0.1.0}. */
    public Builder serverInfo(String name, String version) {
      this.name = Objects.requireNonNull(name, "name");
      this.version = Objects.requireNonNull(version, "version");
      return this;
    }

    /** The longest a request may take before the SDK answers it with an error; default 10 minutes. */
    public Builder requestTimeout(Duration timeout) {
      this.requestTimeout = Objects.requireNonNull(timeout, "timeout");
      return this;
    }

    /**
     * The widest visibility of the records MCP clients may read as resources ({@code
     * rcrt://breadcrumbs/{id}} and the listings): {@code PUBLIC} by default, so a store's {@code
     * Team} records (conversations, tool requests and responses) stay with the team until the
     * host says otherwise; {@code TEAM} serves those too. {@code PRIVATE} is refused: a private
     * record is its owner's alone, and secret records are never served, whatever this says.
     */
    public Builder readableRecords(dev.rcrt.core.Visibility widest) {
      if (Objects.requireNonNull(widest, "widest") == dev.rcrt.core.Visibility.PRIVATE) {
        throw new IllegalArgumentException("private records are never served over MCP; choose PUBLIC or TEAM");
      }
      this.readable = widest;
      return this;
    }

    /**
     * SSE polling (MCP 2025-11-25, SEP-1699): the server closes a stream's connection once it has
     * been open for {@code hold} (each later connection of the same stream twice as long as the one
     * before: 1 s, 2 s, 4 s… for a hold of 1 s), and the client comes back after {@code retry} with
     * {@code GET} and {@code Last-Event-ID} for what it missed, then the rest; so a long call holds
     * no connection for long (nor meets a proxy's idle timeout). For clients that resume streams,
     * as MCP 2025-11-25 asks of them (this SDK's {@link McpClientSession} does); one that does not
     * loses the answer of a call that outlasts the hold. Default: a connection is held until its
     * stream ends, and every stream still starts with a priming event carrying {@code retry:
     * 1000}, so any client may resume after a dropped connection. A stream is resumed by its own
     * session only, up to 5 minutes after it ended (8 MiB each; 64 MiB and 10,000 streams in all):
     * a call's stream from any process of the runner's store (its events are kept there as
     * {@code mcp.stream.event.v1} records, two writes a call), a session's listening stream from the
     * process that holds it.
     *
     * @param hold how long a connection is held, more than zero
     * @param retry what clients are told to wait before they come back, 0 or more
     */
    public Builder ssePolling(Duration hold, Duration retry) {
      if (hold.isNegative() || hold.isZero() || retry.isNegative()) {
        throw new IllegalArgumentException("ssePolling needs a positive hold and a retry of 0 or more: " + hold + ", " + retry);
      }
      this.sseHold = hold;
      this.sseRetry = retry;
      return this;
    }

    /** The runner's limit for tools that set none, used as the progress total; default 30 s, the runner's default. */
    public Builder defaultToolLimit(Duration limit) {
      this.defaultLimit = Objects.requireNonNull(limit, "limit");
      return this;
    }

    /**
     * Serves over stdio: JSON-RPC lines on {@code in} and {@code out} (the process's own streams
     * for a server an MCP client starts). Nothing else may write to {@code out}.
     */
    public McpToolServer stdio(InputStream in, OutputStream out) {
      CountDownLatch ended = new CountDownLatch(1);
      InputStream watched = new FilterInputStream(in) {
        @Override
        public int read(byte[] b, int off, int len) throws IOException {
          int n = super.read(b, off, len);
          if (n < 0) {
            ended.countDown();
          }
          return n;
        }

        @Override
        public int read() throws IOException {
          int c = super.read();
          if (c < 0) {
            ended.countDown();
          }
          return c;
        }
      };
      return new McpToolServer(this, McpServer.sync(new StdioServerTransportProvider(McpJsonDefaults.getMapper(), watched, out)), null, ended);
    }

    /**
     * Serves streamable HTTP at {@code http://host:port/mcp}.
     *
     * @param host the address to bind; {@code 127.0.0.1} keeps it to this machine
     * @param port 0 for a free port
     * @param bearerToken the token clients must send; required unless {@code host} is a loopback
     *     address
     * @throws IllegalArgumentException for a non-loopback address without a token
     * @throws IllegalStateException when the address cannot be bound
     */
    public McpToolServer http(String host, int port, @Nullable String bearerToken) {
      if (bearerToken == null && !loopback(host)) {
        throw new IllegalArgumentException(
            "an MCP server listening on " + host + " is reachable from other machines: give it a bearer token (RCRT_MCP_TOKEN),"
                + " or listen on 127.0.0.1");
      }
      List<String> hosts = new ArrayList<>(List.of("localhost:*", "127.0.0.1:*", "[::1]:*"));
      List<String> origins = new ArrayList<>(List.of("http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"));
      if (!loopback(host)) {
        hosts.add(host + ":*");
        origins.add("http://" + host + ":*");
      }
      StreamableHttp transport = transport(StreamableHttp.ENDPOINT, hosts, origins);
      HttpListener listener;
      try {
        listener = new HttpListener("the MCP server", host, port, IDLE_TIMEOUT, ErrorBody.JSON_RPC, transport, filters(bearerToken));
      } catch (java.io.UncheckedIOException e) {
        throw new IllegalStateException(e.getMessage(), e);
      }
      try {
        return new McpToolServer(this, transport.syncServer(), listener, new CountDownLatch(1));
      } catch (RuntimeException e) {
        listener.close();
        throw e;
      }
    }

    /**
     * Serves streamable HTTP inside a servlet container the host already runs (a Spring Boot
     * application's Tomcat, say) instead of a listener of its own: register {@link
     * Mounted#servlet()} (asynchronous) at the endpoint path and {@link Mounted#filters()} before
     * it, in order; close {@link Mounted#server()} when the container stops. Requests whose {@code
     * Host} or {@code Origin} match none of the patterns are refused (DNS-rebinding protection, as
     * for {@link #http}); with a bearer token, requests without it are answered 401 before their
     * body is read; malformed bodies get JSON-RPC errors.
     *
     * @param path the path the servlet is registered at, such as {@code /mcp} (the transport answers only there)
     * @param allowedHosts {@code Host} patterns such as {@code "localhost:*"} or {@code "mcp.example.com"}
     * @param allowedOrigins {@code Origin} patterns such as {@code "https://app.example.com"}; a request without one passes
     * @param bearerToken the token clients must send; required unless every allowed host is a loopback name
     * @throws IllegalArgumentException for a host reachable from other machines without a token
     */
    public Mounted servlet(String path, List<String> allowedHosts, List<String> allowedOrigins, @Nullable String bearerToken) {
      boolean loopbackOnly = allowedHosts.stream().map(h -> h.replaceFirst(":[^:\\]]*$", "").replace("[", "").replace("]", ""))
          .allMatch(Builder::loopback);
      if (bearerToken == null && !loopbackOnly) {
        throw new IllegalArgumentException(
            "an MCP endpoint allowed for hosts " + allowedHosts + " is reachable from other machines: give it a bearer token");
      }
      StreamableHttp transport = transport(path, List.copyOf(allowedHosts), List.copyOf(allowedOrigins));
      List<jakarta.servlet.Filter> filters = filters(bearerToken);
      return new Mounted(new McpToolServer(this, transport.syncServer(), null, new CountDownLatch(1)), transport, filters);
    }

    private StreamableHttp transport(String path, List<String> hosts, List<String> origins) {
      return new StreamableHttp(path, DefaultServerTransportSecurityValidator.builder().allowedHosts(hosts).allowedOrigins(origins).build(),
          runner.timeSource(), sseRetry, sseHold, Duration.ofSeconds(30), runner.store());
    }

    /** The bearer check (with a token), then the JSON-RPC body check: nobody unauthenticated gets the body read. */
    private static List<jakarta.servlet.Filter> filters(@Nullable String bearerToken) {
      List<jakarta.servlet.Filter> filters = new ArrayList<>();
      if (bearerToken != null) {
        filters.add(new dev.rcrt.mcp.internal.BearerFilter(bearerToken));
      }
      filters.add(new dev.rcrt.mcp.internal.JsonRpcBodyFilter());
      return List.copyOf(filters);
    }

    private static boolean loopback(String host) {
      try {
        return InetAddress.getByName(host).isLoopbackAddress();
      } catch (UnknownHostException e) {
        return false;
      }
    }
  }
}
