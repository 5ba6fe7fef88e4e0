package dev.rcrt.mcp;

import dev.rcrt.core.RcrtException;
import dev.rcrt.mcp.internal.OAuthSession;
import dev.rcrt.mcp.internal.OAuthTransport;
import dev.rcrt.mcp.internal.StdioServerTransport;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * One initialized connection to an MCP server, on the official SDK's client: its tools listed and
 * called. A command is started as a child process and stopped on {@link #close()}. Thread-safe.
 */
public final class McpClientSession implements AutoCloseable {
  private final McpSyncClient client;
  private final McpServerAddress address;
  /** The transport of a server this session started as a process; null for an HTTP server. */
  private final @Nullable StdioServerTransport stdio;

  /** Who hears the progress of each call under way, by the {@code progressToken} this session gave it. */
  private final Map<String, Consumer<McpSchema.ProgressNotification>> progress;
  /** The server's authorization, for an HTTP server connected with an {@link McpOAuth}; else null. */
  private final @Nullable OAuthSession auth;

  private McpClientSession(McpSyncClient client, McpServerAddress address, @Nullable StdioServerTransport stdio,
      Map<String, Consumer<McpSchema.ProgressNotification>> progress, @Nullable OAuthSession auth) {
    this.client = client;
    this.address = address;
    this.stdio = stdio;
    this.progress = progress;
    this.auth = auth;
  }

  /**
   * Connects and initializes.
   *
   * @param address the server, secrets already resolved
   * @param timeout the limit of each request, initialization included
   * @param toolsChanged called with the new list when the server sends {@code
   *     notifications/tools/list_changed}
   * @throws McpException {@code mcp_unavailable} when the server cannot be started or reached, or
   *     does not initialize in time; the message names the server, never a header or env value
   */
  public static McpClientSession connect(McpServerAddress address, Duration timeout, Consumer<List<McpSchema.Tool>> toolsChanged) {
    return connect(address, timeout, Set.of(), toolsChanged);
  }

  /**
   * Connects and initializes; a command starts with the official MCP SDKs' default environment
   * ({@code HOME}, {@code LOGNAME}, {@code PATH}, {@code SHELL}, {@code TERM}, {@code USER}, or
   * their Windows equivalents), the host's variables named in {@code inheritedEnvironment}, and the
   * address's {@code env}, nothing else of this process's environment.
   *
   * @see #connect(McpServerAddress, Duration, Consumer)
   */
  public static McpClientSession connect(
      McpServerAddress address, Duration timeout, Set<String> inheritedEnvironment, Consumer<List<McpSchema.Tool>> toolsChanged) {
    return connect(address, timeout, inheritedEnvironment, toolsChanged, null);
  }

  /**
   * Connects and initializes, declaring the {@code elicitation} capability (form mode) when {@code
   * elicitation} is given: a server that asks the user during a call ({@code elicitation/create})
   * is answered by it, on a transport thread, with values it leaves out filled from the requested
   * schema's defaults (SEP-1034). Without one the capability is not declared and a server cannot
   * ask.
   *
   * @param elicitation answers a server's form elicitation (accept with values, decline or cancel),
   *     or null; it must return within {@code timeout}, after which the server's call fails
   * @see #connect(McpServerAddress, Duration, Set, Consumer)
   */
  public static McpClientSession connect(
      McpServerAddress address, Duration timeout, Set<String> inheritedEnvironment, Consumer<List<McpSchema.Tool>> toolsChanged,
      @Nullable Function<McpSchema.ElicitFormRequest, McpSchema.ElicitResult> elicitation) {
    return connect(address, timeout, inheritedEnvironment, toolsChanged, elicitation, null, null);
  }

  /**
   * Connects and initializes as {@link #connect(McpServerAddress, Duration, Set, Consumer,
   * Function)} does, signing in with {@code oauth} where an HTTP server answers {@code 401} or
   * {@code 403} (see {@link McpOAuth}); a command's server ignores it. Each request (initialization
   * included) may then wait {@link McpOAuth#authorizationWait()} longer than {@code timeout}, for a
   * person to authorize.
   *
   * @param oauth how to authorize, or null to send only the address's headers
   * @throws McpException {@code mcp_unauthorized} when the server refuses every token this client
   *     could get, with one line that says why
   */
  public static McpClientSession connect(
      McpServerAddress address, Duration timeout, Set<String> inheritedEnvironment, Consumer<List<McpSchema.Tool>> toolsChanged,
      @Nullable Function<McpSchema.ElicitFormRequest, McpSchema.ElicitResult> elicitation, @Nullable McpOAuth oauth) {
    return connect(address, timeout, inheritedEnvironment, toolsChanged, elicitation, null, oauth);
  }

  /**
   * Connects and initializes as {@link #connect(McpServerAddress, Duration, Set, Consumer,
   * Function)} does, also declaring the {@code sampling} capability when {@code sampling} is given:
   * a server's {@code sampling/createMessage} is answered by it, on a transport thread. For the
   * {@code mcp} runtime, which puts both questions to the call under way.
   */
  static McpClientSession connect(
      McpServerAddress address, Duration timeout, Set<String> inheritedEnvironment, Consumer<List<McpSchema.Tool>> toolsChanged,
      @Nullable Function<McpSchema.ElicitFormRequest, McpSchema.ElicitResult> elicitation,
      @Nullable Function<McpSchema.CreateMessageRequest, McpSchema.CreateMessageResult> sampling, @Nullable McpOAuth oauth) {
    Map<String, Consumer<McpSchema.ProgressNotification>> progress = new java.util.concurrent.ConcurrentHashMap<>();
    McpClientTransport transport;
    OAuthSession auth = null;
    if (address.url() != null) {
      URI url = address.url();
      HttpRequest.Builder requests = HttpRequest.newBuilder();
      address.headers().forEach(requests::header);
      String base = url.getScheme() + "://" + url.getRawAuthority();
      String endpoint = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath() + (url.getRawQuery() == null ? "" : "?" + url.getRawQuery());
      HttpClientStreamableHttpTransport.Builder http =
          HttpClientStreamableHttpTransport.builder(base).endpoint(endpoint).requestBuilder(requests).connectTimeout(timeout)
              .clientBuilder(dev.rcrt.mcp.internal.ResumingHttpClient.builder()); // resumes a stream the server closed before its answer
      if (oauth != null) {
        auth = new OAuthSession(oauth, url);
        OAuthTransport.apply(http, auth, oauth.maxAuthorizations());
      }
      transport = http.build();
    } else {
      ServerParameters.Builder p = ServerParameters.builder(address.command().get(0)).args(address.command().subList(1, address.command().size()));
      if (!address.env().isEmpty()) {
        p.env(Map.copyOf(address.env()));
      }
      transport = new StdioServerTransport(p.build(), inheritedEnvironment);
    }
    StdioServerTransport stdio = transport instanceof StdioServerTransport s ? s : null;
    McpClient.SyncSpec spec =
        McpClient.sync(transport)
            .clientInfo(new McpSchema.Implementation("rcrt", "0.1.0"))
            .requestTimeout(waited(timeout, oauth))
            .initializationTimeout(waited(timeout, oauth))
            .toolsChangeConsumer(toolsChanged)
            .progressConsumer(n -> {
              Consumer<McpSchema.ProgressNotification> listener = n.progressToken() == null ? null : progress.get(String.valueOf(n.progressToken()));
              if (listener != null) {
                listener.accept(n);
              }
            });
    McpSchema.ClientCapabilities.Builder capabilities = McpSchema.ClientCapabilities.builder();
    if (elicitation != null) {
      capabilities.elicitation(true, false);
      spec.elicitation(elicitation).applyElicitationDefaults(true);
    }
    if (sampling != null) {
      capabilities.sampling();
      spec.sampling(sampling);
    }
    if (elicitation != null || sampling != null) {
      spec.capabilities(capabilities.build());
    }
    McpSyncClient client = spec.build();
    try {
      send(stdio, client::initialize);
    } catch (RuntimeException e) {
      client.close();
      String refused = OAuthTransport.refusal(e, auth);
      if (refused != null) {
        throw new McpException(McpException.UNAUTHORIZED, "MCP server " + address + " is not authorized: " + refused, false, e);
      }
      throw new McpException(McpException.UNAVAILABLE, "MCP server " + address + " did not start or initialize: " + reason(e), true, e);
    }
    return new McpClientSession(client, address, stdio, progress, auth);
  }

  /** The server's tools, every page; none when the server does not offer the tools capability. */
  public List<McpSchema.Tool> listTools() {
    McpSchema.ServerCapabilities capabilities = client.getServerCapabilities();
    if (capabilities == null || capabilities.tools() == null) {
      return List.of();
    }
    return pages("list its tools", Integer.MAX_VALUE, cursor -> {
      McpSchema.ListToolsResult page = cursor == null ? client.listTools() : client.listTools(cursor);
      return java.util.Map.entry(page.tools(), java.util.Optional.ofNullable(page.nextCursor()));
    });
  }

  /** The server's resources, every page (at most {@code max}); none when it does not offer the resources capability. */
  public List<McpSchema.Resource> listResources(int max) {
    McpSchema.ServerCapabilities capabilities = client.getServerCapabilities();
    if (capabilities == null || capabilities.resources() == null) {
      return List.of();
    }
    return pages("list its resources", max, cursor -> {
      McpSchema.ListResourcesResult page = cursor == null ? client.listResources() : client.listResources(cursor);
      return java.util.Map.entry(page.resources(), java.util.Optional.ofNullable(page.nextCursor()));
    });
  }

  /** The contents of resource {@code uri}; failures as {@link #call(String, Map)}'s. */
  public McpSchema.ReadResourceResult readResource(String uri) {
    return request("read " + uri, () -> client.readResource(new McpSchema.ReadResourceRequest(uri)));
  }

  /** The server's prompts, every page (at most {@code max}); none when it does not offer the prompts capability. */
  public List<McpSchema.Prompt> listPrompts(int max) {
    McpSchema.ServerCapabilities capabilities = client.getServerCapabilities();
    if (capabilities == null || capabilities.prompts() == null) {
      return List.of();
    }
    return pages("list its prompts", max, cursor -> {
      McpSchema.ListPromptsResult page = cursor == null ? client.listPrompts() : client.listPrompts(cursor);
      return java.util.Map.entry(page.prompts(), java.util.Optional.ofNullable(page.nextCursor()));
    });
  }

  /** Prompt {@code name} with {@code arguments}; failures as {@link #call(String, Map)}'s. */
  public McpSchema.GetPromptResult getPrompt(String name, Map<String, Object> arguments) {
    return request("give prompt '" + name + "'", () -> client.getPrompt(new McpSchema.GetPromptRequest(name, arguments)));
  }

  /** Every page of a listing, at most {@code max} items; a cursor seen twice ends it (a server that loops). */
  private <T> List<T> pages(String what, int max, Function<@Nullable String, Map.Entry<List<T>, java.util.Optional<String>>> page) {
    java.util.ArrayList<T> all = new java.util.ArrayList<>();
    Set<String> seen = new java.util.HashSet<>();
    String cursor = null;
    do {
      String from = cursor;
      Map.Entry<List<T>, java.util.Optional<String>> p = request(what, () -> page.apply(from));
      for (T item : p.getKey()) {
        if (all.size() < max) {
          all.add(item);
        }
      }
      cursor = p.getValue().orElse(null);
    } while (cursor != null && all.size() < max && seen.add(cursor));
    return all;
  }


  /**
   * Calls one tool.
   *
   * @return the result; {@code isError} results are returned, not thrown
   * @throws McpException {@code mcp_error} when the server answers with a JSON-RPC error (an
   *     unknown tool, invalid arguments; the session is fine), {@code mcp_failed} when the server
   *     went away or did not answer
   */
  public McpSchema.CallToolResult call(String tool, Map<String, Object> arguments) {
    return call(tool, arguments, null);
  }

  /**
   * Calls one tool, asking the server for progress ({@code _meta.progressToken}, unique to this
   * call) when {@code progress} is given: it hears each {@code notifications/progress} of this
   * call, on a transport thread, until the call returns.
   *
   * @see #call(String, Map)
   */
  public McpSchema.CallToolResult call(String tool, Map<String, Object> arguments, @Nullable Consumer<McpSchema.ProgressNotification> progress) {
    McpSchema.CallToolRequest request = new McpSchema.CallToolRequest(tool, arguments);
    String token = null;
    if (progress != null) {
      token = "rcrt-" + java.util.UUID.randomUUID();
      this.progress.put(token, progress);
      request = McpSchema.CallToolRequest.builder(tool).arguments(arguments).meta(Map.of("progressToken", token)).build();
    }
    McpSchema.CallToolRequest asked = request;
    try {
      return request("run tool '" + tool + "'", () -> client.callTool(asked));
    } finally {
      if (token != null) {
        this.progress.remove(token);
      }
    }
  }

  /** Whether this session holds an OAuth access token for its server (it signed in, or used one kept from before). */
  public boolean authorized() {
    return auth != null && auth.accessToken() != null;
  }

  /** The server's name and version, as it gave them when initializing. */
  public McpSchema.Implementation serverInfo() {
    return client.getServerInfo();
  }

  /**
   * {@code request} sent, its failure told as an {@link McpException}: {@code mcp_error} when the
   * server answered with a JSON-RPC error (it refused; the session is fine), {@code
   * mcp_unauthorized} for want of authorization, else {@code mcp_failed} (retryable).
   *
   * @param what what was asked, in words after "could not"
   */
  private <T> T request(String what, Supplier<T> request) {
    try {
      return send(stdio, request);
    } catch (io.modelcontextprotocol.spec.McpError e) {
      Object data = e.getJsonRpcError() == null ? null : e.getJsonRpcError().data();
      throw new McpException(McpException.ERROR, "MCP server " + address + " refused to " + what + ": " + e.getMessage()
          + (data == null ? "" : " (" + data + ")"), false, e);
    } catch (RuntimeException e) {
      throw unauthorized(e).orElseGet(() -> new McpException(McpException.FAILED, "MCP server " + address + " could not " + what + ": " + reason(e), true, e));
    }
  }

  /** {@code request}, failed at once when {@code stdio}'s server process ends; an HTTP server's request runs as it is. */
  private static <T> T send(@Nullable StdioServerTransport stdio, Supplier<T> request) {
    return stdio == null ? request.get() : stdio.untilExit(request);
  }

  /** {@code timeout}, plus the time a person may take to authorize where one may be asked. */
  private static Duration waited(Duration timeout, @Nullable McpOAuth oauth) {
    return oauth == null ? timeout : timeout.plus(oauth.authorizationWait());
  }

  /** {@code mcp_unauthorized}, when {@code e} failed for want of authorization. */
  private java.util.Optional<McpException> unauthorized(RuntimeException e) {
    String refused = OAuthTransport.refusal(e, auth);
    return refused == null ? java.util.Optional.empty()
        : java.util.Optional.of(new McpException(McpException.UNAUTHORIZED, "MCP server " + address + " is not authorized: " + refused, false, e));
  }

  private static String reason(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof InterruptedException) { // the caller stopped waiting (a command's SIGTERM): not the server's doing
        return "this process stopped waiting for the answer (interrupted)";
      }
    }
    Throwable t = e;
    while (t.getCause() != null && t.getMessage() == null) {
      t = t.getCause();
    }
    return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
  }

  /** Ends the session and stops a started server process. */
  @Override
  public void close() {
    if (Thread.currentThread().isInterrupted()) { // stopping: a graceful close would wait, and log its interruption with a stack trace
      client.close();
      return;
    }
    try {
      client.closeGracefully();
    } catch (RuntimeException e) {
      client.close();
    }
  }

  /** A failure talking to an MCP server: {@code mcp_unavailable}, {@code mcp_error}, {@code mcp_failed} or {@code mcp_unauthorized}. */
  public static final class McpException extends RcrtException {
    private static final long serialVersionUID = 1L;
    /** The server could not be started, reached or initialized (retriable). */
    public static final String UNAVAILABLE = "mcp_unavailable";
    /** The server answered a request with a JSON-RPC error (such as an unknown tool). */
    public static final String ERROR = "mcp_error";
    /** The connection failed during a request, or the server's process ended (retriable: it is started again). */
    public static final String FAILED = "mcp_failed";
    /** The server requires an authorization this client could not get or the server refuses (see {@link McpOAuth}). */
    public static final String UNAUTHORIZED = "mcp_unauthorized";

    McpException(String code, String message, boolean retriable, Throwable cause) {
      super(code, message, retriable, cause);
    }
  }
}
