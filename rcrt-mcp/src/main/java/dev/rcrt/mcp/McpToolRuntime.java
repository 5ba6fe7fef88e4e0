package dev.rcrt.mcp;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import dev.rcrt.mcp.McpClientSession.McpException;
import dev.rcrt.mcp.internal.ServerQuestions;
import dev.rcrt.tools.Capability;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolRuntime;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The {@code mcp} implementation type: a tool record that points at a tool of an MCP server,
 * {@code {"type": "mcp", "server": {"command": [...], "env": {...}} | {"url": ..., "headers":
 * {...}}, "tool": "name"}} ({@link McpServerAddress}; {@code secret:NAME} in headers and env,
 * resolved at call time). Found by the {@link dev.rcrt.tools.ToolRunner} through {@link
 * java.util.ServiceLoader} when {@code rcrt-mcp} is on the classpath.
 *
 * <p>A server is started (or connected to) on its first call and reused by every later call with
 * the same address; {@link #close()} (the runner's) stops them. A server that dies fails the call
 * that found it dead with a message that says so, and is started again on the next call. Starting a
 * program needs {@link Capability.StartProcess} ({@code ToolTrustPolicy.Builder.allowCommands},
 * CLI {@code --allow-command}); a URL needs the policy to allow connecting to its host, as HTTP
 * tools do. Results: the {@code structuredContent} when the server gives one, else the text blocks
 * joined (a string), else the content blocks as JSON; an {@code isError} result is a {@code
 * tool_failed} with its text.
 *
 * <p>Progress a server reports during a call is the call's progress, and the server's questions
 * ({@code sampling/createMessage}, {@code elicitation/create}: the session declares both
 * capabilities) are put to the call's own caller through its {@link dev.rcrt.tools.ToolContext},
 * under the runner's bounds: an MCP client of {@code mcp serve}, or an agent's run (its model where
 * the tool record allows {@code permissions.sampling}; a question it records and waits on). A
 * question that cannot be tied to one call (none, or several under way on the session) is refused.
 */
public final class McpToolRuntime implements ToolRuntime {
  private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};
  /** The longest a server may take to start and initialize. */
  private static final Duration START = Duration.ofSeconds(60);

  /**
   * One started server per address as the record writes it ({@code secret:} references unresolved),
   * so a rotated secret replaces the session instead of leaving the old server running.
   */
  private final Map<McpServerAddress, Started> sessions = new ConcurrentHashMap<>();
  /** Where each server's questions go: the call under way on its session. */
  private final Map<McpServerAddress, ServerQuestions> questions = new ConcurrentHashMap<>();
  private final Set<String> inheritedEnvironment;
  private final @Nullable McpOAuth oauth;
  private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

  /** A server being started or running, for the secret values it was started with. */
  private record Started(McpServerAddress resolved, CompletableFuture<McpClientSession> session) {}

  /**
   * The runtime found through {@link java.util.ServiceLoader}: a stdio server starts with only the
   * environment the official MCP SDKs hand down ({@code HOME}, {@code LOGNAME}, {@code PATH},
   * {@code SHELL}, {@code TERM}, {@code USER}; on Windows {@code APPDATA}, {@code PATH}, {@code
   * SYSTEMROOT}, {@code TEMP}, {@code USERPROFILE} and the like) plus the record's {@code env}.
   */
  public McpToolRuntime() {
    this(Set.of());
  }

  /**
   * A runtime whose stdio servers also get the host's variables named in {@code
   * inheritedEnvironment} (for example a proxy setting), on top of the default set and the record's
   * {@code env}. Nothing else of the host's environment (its keys and tokens) reaches a server.
   * Pass it to {@code ToolRunner.Builder.runtime}.
   */
  public McpToolRuntime(Collection<String> inheritedEnvironment) {
    this(inheritedEnvironment, null);
  }

  /**
   * A runtime as {@link #McpToolRuntime(Collection)}, that signs in with {@code oauth} to the URL
   * servers whose record asks for it: {@code implementation.server.oauth}, an object that may name
   * the server's pre-registered client ({@code client_id}, {@code client_secret} as a {@code
   * secret:NAME} reference, resolved at each call) or this client's ID metadata document ({@code
   * client_metadata_url}); {@code {}} registers dynamically. Tokens come from and go to {@code
   * oauth}'s {@link McpOAuth.TokenStore}, so a host can authorize once (with {@code ./rcrt mcp
   * import}) and run later. A server whose record has no {@code oauth} is sent only its headers.
   *
   * @param oauth how to sign in, or null for never
   */
  public McpToolRuntime(Collection<String> inheritedEnvironment, @Nullable McpOAuth oauth) {
    this.inheritedEnvironment = Set.copyOf(inheritedEnvironment);
    this.oauth = oauth;
  }

  @Override
  public String type() {
    return "mcp";
  }

  @Override
  public List<String> problems(ToolDefinition definition) {
    List<String> out = new ArrayList<>();
    JsonNode spec = definition.implementation().spec();
    try {
      McpServerAddress.fromJson(spec.path("server"));
    } catch (ValidationException | IllegalArgumentException e) {
      out.add("tool '" + definition.name() + "' implementation.server: " + e.getMessage());
    }
    if (!spec.path("tool").isTextual() || spec.path("tool").asText().isBlank()) {
      out.add("tool '" + definition.name() + "' implementation.tool: required, the name of the MCP server's tool");
    }
    return out;
  }

  @Override
  public Loaded load(ToolDefinition definition, Services services) {
    List<String> problems = problems(definition);
    if (!problems.isEmpty()) {
      throw new ToolException(ToolErrorCode.TOOL_DEFINITION_INVALID, String.join("; ", problems));
    }
    JsonNode spec = definition.implementation().spec();
    McpServerAddress address = McpServerAddress.fromJson(spec.get("server"));
    if (address.url() != null) {
      services.checkConnect("MCP server", address.url());
    } else if (!services.policy().allows(new Capability.StartProcess(address.command().get(0)))) {
      throw new ToolException(
          ToolErrorCode.TOOL_UNTRUSTED,
          "tool '" + definition.name() + "' would start '" + address.command().get(0) + "' (an MCP server), which the trust policy does not"
              + " allow; allow it with " + services.policy().howToAllow(new Capability.StartProcess(address.command().get(0))));
    }
    String tool = spec.get("tool").asText();
    JsonNode signIn = spec.get("server").get("oauth");
    return (input, call) -> {
      McpServerAddress resolved = address.resolved(v -> v.startsWith("secret:") ? call.secret(v) : v);
      McpOAuth asked = address.url() == null || signIn == null || !signIn.isObject() ? null : oauth(signIn, call);
      McpClientSession session = session(address, resolved, call.remaining(), asked);
      McpSchema.CallToolResult result;
      try {
        // the server's progress and questions are the call's: the runner passes them on to whoever called (an MCP client of our own,
        // an agent's run, its listeners)
        result = questions(address).during(call.context(),
            () -> session.call(tool, RcrtJson.convert(input, MAP), n -> call.context().progress(n.progress(), n.total(), n.message())));
      } catch (McpException e) {
        if (e.code().equals(McpClientSession.McpException.FAILED)) {
          drop(address, session);
          throw new ToolException(ToolErrorCode.TOOL_FAILED, e.getMessage() + "; the server is started again on the next call");
        }
        throw new ToolException(ToolErrorCode.TOOL_FAILED, e.getMessage());
      }
      if (Boolean.TRUE.equals(result.isError())) {
        throw new ToolException(ToolErrorCode.TOOL_FAILED, "MCP tool '" + tool + "' of " + address + " reported an error: " + text(result));
      }
      return output(result);
    };
  }

  /**
   * The session for {@code address}, started on first use. Servers start in parallel, each once: a
   * caller waits only for the server it needs, and at most {@code within} (its call's remaining
   * time; a start takes at most {@link #START} too), interruptibly. When the secrets resolve to
   * other values than the running server got, that server is stopped and one with the new values
   * started. After {@link #close()}, nothing starts.
   */
  private McpClientSession session(McpServerAddress address, McpServerAddress resolved, Duration within, @Nullable McpOAuth signIn) {
    while (true) {
      if (closed.get()) {
        throw new ToolException(ToolErrorCode.TOOL_FAILED, "the MCP runtime is closed (its runner was closed): " + address + " is not started");
      }
      Started current = sessions.get(address);
      if (current != null && current.resolved().equals(resolved)) {
        try {
          return current.session().get(Math.max(0, within.toNanos()), java.util.concurrent.TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
          sessions.remove(address, current);
          throw e.getCause() instanceof ToolException t ? t : new ToolException(ToolErrorCode.TOOL_FAILED, String.valueOf(e.getCause()));
        } catch (java.util.concurrent.TimeoutException e) {
          throw new ToolException(ToolErrorCode.TOOL_TIMEOUT,
              "MCP server " + address + " was still starting when the call's time ran out (" + within.toMillis() + " ms)");
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new ToolException(ToolErrorCode.TOOL_FAILED, "interrupted while waiting for MCP server " + address + " to start");
        }
      }
      Started mine = new Started(resolved, new CompletableFuture<>());
      boolean won = current == null ? sessions.putIfAbsent(address, mine) == null : sessions.replace(address, current, mine);
      if (!won) {
        continue;
      }
      if (current != null) {
        current.session().thenAccept(McpClientSession::close); // the values it was started with are stale
      }
      try {
        Duration timeout = within.compareTo(START) < 0 ? within : START;
        ServerQuestions asked = questions(address);
        McpClientSession started = McpClientSession.connect(resolved, timeout.isNegative() || timeout.isZero() ? Duration.ofMillis(1) : timeout,
            inheritedEnvironment, tools -> {}, asked::elicit, asked::sample, signIn);
        mine.session().complete(started);
        if (closed.get()) { // closed while it started: nobody else would stop it
          started.close();
          sessions.remove(address, mine);
          throw new ToolException(ToolErrorCode.TOOL_FAILED, "the MCP runtime was closed while " + address + " started; it is stopped");
        }
        return started;
      } catch (McpException e) {
        ToolException failure = new ToolException(ToolErrorCode.TOOL_FAILED, e.getMessage());
        sessions.remove(address, mine);
        mine.session().completeExceptionally(failure);
        throw failure;
      } catch (Throwable e) {
        sessions.remove(address, mine);
        mine.session().completeExceptionally(e);
        throw e;
      }
    }
  }

  /**
   * The sign-in a record's {@code server.oauth} asks for: the runtime's, with the record's client.
   *
   * @throws ToolException {@code tool_failed} when this runtime was given no OAuth configuration
   */
  private McpOAuth oauth(JsonNode signIn, ToolRuntime.Call call) {
    McpOAuth base = oauth;
    if (base == null) {
      throw new ToolException(ToolErrorCode.TOOL_FAILED, "the MCP server requires OAuth (its record has server.oauth), and this runner was"
          + " given no OAuth configuration (new McpToolRuntime(env, McpOAuth))");
    }
    String id = signIn.path("client_id").isTextual() ? signIn.get("client_id").asText() : null;
    String secret = signIn.path("client_secret").isTextual() ? call.secret(signIn.get("client_secret").asText()) : null;
    String key = signIn.path("client_key").isTextual() ? call.secret(signIn.get("client_key").asText()) : null;
    String cimd = signIn.path("client_metadata_url").isTextual() ? signIn.get("client_metadata_url").asText() : null;
    McpOAuth.Builder b = base.forClient(id, secret, cimd == null ? null : java.net.URI.create(cimd)).toBuilder();
    if (id != null && key != null) {
      b.clientKey(id, key);
    }
    if ("client_credentials".equals(signIn.path("grant").asText())) {
      b.clientCredentials();
    }
    return b.build();
  }

  private ServerQuestions questions(McpServerAddress address) {
    return questions.computeIfAbsent(address, a -> new ServerQuestions(a.toString()));
  }

  /** Forgets {@code session} of {@code address} after a transport failure, and stops it. */
  private void drop(McpServerAddress address, McpClientSession session) {
    Started current = sessions.get(address);
    if (current != null && current.session().getNow(null) == session) {
      sessions.remove(address, current);
    }
    session.close();
  }

  private static JsonNode output(McpSchema.CallToolResult result) {
    if (result.structuredContent() != null) {
      return RcrtJson.toTree(result.structuredContent());
    }
    if (result.content().stream().allMatch(c -> c instanceof McpSchema.TextContent)) {
      return RcrtJson.nodes().textNode(text(result));
    }
    ArrayNode blocks = RcrtJson.toTree(result.content());
    return blocks;
  }

  private static String text(McpSchema.CallToolResult result) {
    StringBuilder out = new StringBuilder();
    for (McpSchema.Content c : result.content()) {
      out.append(out.isEmpty() ? "" : "\n").append(c instanceof McpSchema.TextContent t ? t.text() : "[" + c.type() + " content]");
    }
    return out.toString();
  }

  /** Stops every server this runtime started and ends every session; later calls start nothing. Idempotent. */
  @Override
  public void close() {
    closed.set(true);
    sessions.values().forEach(s -> s.session().thenAccept(McpClientSession::close));
    sessions.clear();
  }
}
