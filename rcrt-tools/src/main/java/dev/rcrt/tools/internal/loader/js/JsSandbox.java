package dev.rcrt.tools.internal.loader.js;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.RcrtException;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Sensitivity;
import dev.rcrt.tools.ToolContext;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.internal.CallScope;
import dev.rcrt.tools.internal.loader.http.BoundedBody;
import dev.rcrt.tools.internal.trust.NetworkGuard;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.HostAccess;
import org.graalvm.polyglot.PolyglotException;
import org.graalvm.polyglot.ResourceLimits;
import org.graalvm.polyglot.SandboxPolicy;
import org.graalvm.polyglot.Source;
import org.graalvm.polyglot.Value;
import org.graalvm.polyglot.proxy.ProxyExecutable;
import org.graalvm.polyglot.proxy.ProxyObject;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One GraalJS context running one version of one tool's code, under {@link
 * SandboxPolicy#CONSTRAINED}: no I/O, no host class lookup, no threads, no {@code Java}, {@code
 * Polyglot}, {@code require}, {@code process} or {@code load}. {@code console} output goes to a
 * buffer that is logged after each call, so it can never reach the result.
 *
 * <p>The tool's {@code context} argument is {@code {request: {id, tool, requestedBy}, secrets,
 * config, api}}: {@code secrets} holds only the secrets the tool declares, and {@code api} offers
 * {@code getBreadcrumb(id)}, {@code searchBreadcrumbs(selector, limit)} and {@code
 * createBreadcrumb(payload)} on the calling tool's view of the store (writes stamped {@code
 * tool:<name>}; tools, configs, agents and schema definitions refused unless the trust policy
 * trusts the tool). {@code fetch} exists only when {@code permissions.net} allows it, reaches only
 * the hosts listed there, and only addresses the trust policy allows.
 *
 * <p>Not thread-safe: a context runs one call; {@link JsTool} discards it afterwards.
 */
final class JsSandbox implements AutoCloseable {
  private static final Logger CONSOLE = LoggerFactory.getLogger("dev.rcrt.tools.js.console");
  private static final int CONSOLE_LIMIT = 64 * 1024;
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).followRedirects(HttpClient.Redirect.NEVER).build();

  private static final String PRELUDE =
      """
      (function (host, netAllowed) {
        const unwrap = (text) => { const r = JSON.parse(text); if (r.error !== undefined) throw new Error(r.error); return r.value; };
        const api = Object.freeze({
          getBreadcrumb: async (id) => unwrap(host.get(String(id))),
          searchBreadcrumbs: async (selector, limit) => unwrap(host.search(JSON.stringify(selector ?? {}), Number(limit ?? 50))),
          createBreadcrumb: async (payload) => unwrap(host.create(JSON.stringify(payload ?? {}))),
        });
        if (netAllowed) {
          globalThis.fetch = async (url, init) => {
            init = init || {};
            const body = init.body === undefined || init.body === null ? null : String(init.body);
            const r = unwrap(host.fetch(String(url), String(init.method || 'GET'), JSON.stringify(init.headers || {}), body));
            return Object.freeze({ status: r.status, ok: r.status >= 200 && r.status < 300, headers: r.headers,
              text: async () => r.body, json: async () => JSON.parse(r.body) });
          };
        }
        return async function (fn, inputJson, requestJson, secretsJson, configJson) {
          let out;
          try {
            const context = Object.freeze({ request: Object.freeze(JSON.parse(requestJson)),
              secrets: Object.freeze(JSON.parse(secretsJson)), config: Object.freeze(JSON.parse(configJson)), api });
            out = await fn(JSON.parse(inputJson), context);
          } catch (e) {
            const text = e && e.stack ? String(e.stack).split('\\n').slice(0, 2).map(s => s.trim()).join(' ') : String(e);
            return JSON.stringify({ error: 'threw ' + text });
          }
          if (out === undefined) return JSON.stringify({ error: 'returned undefined; return a JSON value such as an object' });
          let text;
          try { text = JSON.stringify(out); } catch (e) { return JSON.stringify({ error: 'returned a value that is not JSON: ' + e }); }
          if (text === undefined) return JSON.stringify({ error: 'returned a ' + typeof out + ', which is not a JSON value' });
          return JSON.stringify({ value: text });
        };
      })
      """;

  private final JsProgram program;
  private final NetworkGuard network;
  private final JsRuntime runtime;
  private final ByteArrayOutputStream console = new ByteArrayOutputStream();
  private final Context context;
  private final Value handler;
  private final Value call;
  private volatile @Nullable CallScope current;
  private volatile @Nullable BreadcrumbStore store;
  private volatile boolean running;
  /** Set by the stopper when this call's deadline passed; read by the calling thread. */
  private volatile boolean timedOut;
  /** Set by the memory sampler when this call allocated past its budget. */
  private volatile boolean overBudget;

  /**
   * Creates the context and evaluates the tool's module.
   *
   * @throws ToolException {@code tool_definition_invalid} for a syntax error (line and column) or a
   *     module without the handler export
   */
  JsSandbox(JsProgram program, NetworkGuard network, JsRuntime runtime) {
    this.program = program;
    this.network = network;
    this.runtime = runtime;
    OutputStream sink = new OutputStream() {
      @Override
      public void write(int b) {
        synchronized (console) {
          if (console.size() < CONSOLE_LIMIT) {
            console.write(b);
          }
        }
      }
    };
    this.context =
        Context.newBuilder("js")
            .engine(runtime.engine())
            .sandbox(SandboxPolicy.CONSTRAINED)
            .allowHostAccess(HostAccess.CONSTRAINED)
            .allowCreateThread(false)
            .option("js.esm-eval-returns-exports", "true")
            .resourceLimits(ResourceLimits.newBuilder().statementLimit(program.statementLimit(), null).build())
            .out(sink)
            .err(sink)
            .build();
    try {
      Value exports =
          context.eval(
              Source.newBuilder("js", program.javascript(), program.tool() + ".mjs")
                  .mimeType("application/javascript+module")
                  .buildLiteral());
      Value fn = exports.getMember(program.handler());
      if (fn == null || !fn.canExecute()) {
        throw new ToolException(
            "tool_definition_invalid",
            "tool '" + program.tool() + "' code does not export a function '" + program.handler()
                + "'; write `export async function " + program.handler() + "(input, context) { … }`");
      }
      this.handler = fn;
      this.call = context.eval("js", PRELUDE).execute(hostBridge(), program.allowedHosts() != null);
    } catch (PolyglotException e) {
      context.close(true);
      throw new ToolException("tool_definition_invalid", "tool '" + program.tool() + "' code " + describe(e));
    } catch (RuntimeException e) {
      context.close(true);
      throw e;
    }
  }

  /** Runs the handler once, interrupting it at the call's deadline. */
  JsonNode call(JsonNode input, ToolContext ctx, CallScope scope) {
    current = scope;
    store = ctx.store();
    Duration limit = scope.remaining();
    running = true;
    timedOut = false;
    overBudget = false;
    ScheduledFuture<?> guard =
        runtime.watchdog().schedule(() -> runtime.stopper().execute(this::stop), limit.toMillis(), TimeUnit.MILLISECONDS);
    @Nullable ScheduledFuture<?> memory = watchAllocations(Thread.currentThread());
    try {
      ObjectNode request = RcrtJson.object().put("id", ctx.requestId()).put("tool", ctx.tool()).put("requestedBy", ctx.requestedBy());
      Value promise =
          call.execute(
              handler,
              RcrtJson.write(input),
              RcrtJson.write(request),
              RcrtJson.write(ctx.secrets()),
              RcrtJson.write(ctx.config()));
      String[] settled = new String[1];
      promise.invokeMember("then", (ProxyExecutable) args -> settled[0] = args[0].asString());
      if (settled[0] == null) {
        throw new ToolException(
            "tool_failed",
            "tool '" + program.tool() + "': " + program.handler() + "'s Promise never settled; it waits for something that cannot happen here (no timers or I/O exist in the sandbox)");
      }
      JsonNode outcome = RcrtJson.parse(settled[0]);
      if (outcome.has("error")) {
        throw new ToolException("tool_failed", "tool '" + program.tool() + "' " + outcome.get("error").asText());
      }
      return RcrtJson.parse(outcome.get("value").asText());
    } catch (PolyglotException e) {
      if (overBudget) {
        throw memoryLimit();
      }
      if (e.isInterrupted() || (e.isCancelled() && timedOut)) {
        throw new ToolException("tool_timeout", "tool '" + program.tool() + "' timed out after " + scope.limit().toMillis() + " ms");
      }
      if (e.isResourceExhausted() || e.isCancelled()) {
        throw new ToolException(
            "tool_timeout",
            "tool '" + program.tool() + "' ran more than " + program.statementLimit() + " statements and was stopped");
      }
      if (e.isHostException() && e.asHostException() instanceof RcrtException r) {
        throw r;
      }
      throw new ToolException("tool_failed", "tool '" + program.tool() + "' " + describe(e));
    } catch (IllegalStateException e) {
      if (overBudget) {
        throw memoryLimit();
      }
      if (timedOut) {
        // the context was cancelled from outside while the call was between guest steps
        throw new ToolException("tool_timeout", "tool '" + program.tool() + "' timed out after " + scope.limit().toMillis() + " ms");
      }
      throw e;
    } finally {
      running = false;
      guard.cancel(false);
      if (memory != null) {
        memory.cancel(false);
      }
      if (timedOut) {
        // an interrupt meant for the guest must not outlive the call on this (the host's) thread
        Thread.interrupted();
      }
      current = null;
      store = null;
      flushConsole(scope);
    }
  }

  /**
   * Stops a call past its deadline, on a stopper thread so the watchdog never waits: an interrupt
   * first; a guest that does not yield to it within {@link #INTERRUPT_GRACE} (one that keeps
   * catching the errors its own recursion raises, for example) has its context cancelled, which it
   * cannot catch, and the context is discarded.
   */
  private void stop() {
    if (!running) {
      return;
    }
    timedOut = !overBudget;
    try {
      context.interrupt(INTERRUPT_GRACE);
    } catch (java.util.concurrent.TimeoutException | IllegalStateException e) {
      try {
        context.close(true);
      } catch (RuntimeException closing) {
        // already closed or closing: the call ends either way
      }
    }
  }

  private static final Duration INTERRUPT_GRACE = Duration.ofMillis(250);

  /**
   * Memory: GraalJS community edition cannot cap a context's heap, so the budget is an allocation
   * budget, enforced from outside: the watchdog samples HotSpot's count of bytes the calling thread
   * has allocated ({@code com.sun.management.ThreadMXBean#getThreadAllocatedBytes}) every {@link
   * #SAMPLE_MS} ms, and stops the guest once this call has allocated more than {@code
   * limits.memory_mb} (default {@link JsProgram#DEFAULT_MEMORY_MB}). The trade-off: it counts
   * everything allocated, garbage included, so a tool that churns through short-lived objects needs
   * a budget above its live size; in return it costs one read of a counter per sample, and a bomb
   * is stopped within a sample of passing its budget, long before it can exhaust the host's heap.
   * Where the JVM does not count allocations, only the time limit applies (and null is returned).
   */
  private @Nullable ScheduledFuture<?> watchAllocations(Thread caller) {
    if (!(java.lang.management.ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean threads)
        || !threads.isThreadAllocatedMemorySupported() || !threads.isThreadAllocatedMemoryEnabled()) {
      return null;
    }
    long id = caller.getId();
    long start = threads.getThreadAllocatedBytes(id);
    long budget = program.memoryBytes();
    return runtime.watchdog().scheduleAtFixedRate(
        () -> {
          if (running && !overBudget && threads.getThreadAllocatedBytes(id) - start > budget) {
            overBudget = true;
            runtime.stopper().execute(this::stop);
          }
        },
        SAMPLE_MS, SAMPLE_MS, TimeUnit.MILLISECONDS);
  }

  private static final long SAMPLE_MS = 10;

  private ToolException memoryLimit() {
    return new ToolException(
        "tool_memory_limit",
        "tool '" + program.tool() + "' allocated more than " + program.memoryBytes() / (1024 * 1024)
            + " MB (limits.memory_mb) and was stopped");
  }

  private void flushConsole(CallScope scope) {
    String text;
    synchronized (console) {
      text = console.toString(StandardCharsets.UTF_8);
      console.reset();
    }
    if (!text.isEmpty()) {
      text.lines().forEach(line -> CONSOLE.info("tool '{}' console: {}", program.tool(), scope.scrub(line)));
    }
  }

  private static String describe(PolyglotException e) {
    var location = e.getSourceLocation();
    String where = location == null ? "" : " at line " + location.getStartLine() + ", column " + location.getStartColumn();
    String kind = e.isSyntaxError() ? "has a syntax error" : "failed";
    return kind + where + ": " + e.getMessage();
  }

  // ------------------------------------------------------------------ host bridge

  private ProxyObject hostBridge() {
    return ProxyObject.fromMap(
        Map.of(
            "get", (ProxyExecutable) a -> guarded(() -> getBreadcrumb(a[0].asString())),
            "search", (ProxyExecutable) a -> guarded(() -> search(a[0].asString(), a[1].asInt())),
            "create", (ProxyExecutable) a -> guarded(() -> create(a[0].asString())),
            "fetch",
                (ProxyExecutable)
                    a -> guarded(() -> fetch(a[0].asString(), a[1].asString(), a[2].asString(), a[3].isNull() ? null : a[3].asString()))));
  }

  /**
   * Host calls answer {@code {"value": …}} or {@code {"error": "…"}}; the prelude turns errors into
   * JS Errors. Host work runs under the call's deadline: none starts once it has passed, {@code
   * fetch} gets only the time left, and store searches take only paths whose cost is bounded (see
   * {@code ContextPaths}).
   */
  private String guarded(java.util.function.Supplier<JsonNode> body) {
    CallScope scope = current;
    if (scope != null && scope.remaining().isZero()) {
      return RcrtJson.write(RcrtJson.object().put("error", "the call's time limit has passed; no more host calls"));
    }
    try {
      return RcrtJson.write(RcrtJson.object().set("value", body.get()));
    } catch (RcrtException | IllegalArgumentException e) {
      return RcrtJson.write(RcrtJson.object().put("error", e.getMessage()));
    }
  }

  /** The calling tool's store view: writes are stamped {@code tool:<name>} and checked by the trust policy. */
  private BreadcrumbStore store() {
    BreadcrumbStore s = store;
    if (s == null) {
      throw new IllegalStateException("context.api is only available during a call");
    }
    return s;
  }

  private JsonNode getBreadcrumb(String id) {
    return store().get(id).map(JsSandbox::visible).orElse(RcrtJson.mapper().nullNode());
  }

  private JsonNode search(String selectorJson, int limit) {
    ArrayNode out = RcrtJson.mapper().createArrayNode();
    for (Breadcrumb b : store().search(Selector.fromJson(RcrtJson.parse(selectorJson)), Math.max(1, Math.min(limit, 500)), 0)) {
      out.add(visible(b));
    }
    return out;
  }

  private JsonNode create(String payloadJson) {
    BreadcrumbCreate payload;
    try {
      payload = RcrtJson.mapper().treeToValue(RcrtJson.parse(payloadJson), BreadcrumbCreate.class);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException("createBreadcrumb: " + (e.getCause() != null ? e.getCause().getMessage() : e.getOriginalMessage()));
    }
    return visible(store().create(payload));
  }

  /** A breadcrumb as tools see it: the context of a secret-sensitivity record is left out. */
  private static JsonNode visible(Breadcrumb b) {
    ObjectNode json = RcrtJson.mapper().valueToTree(b);
    if (b.sensitivity() == Sensitivity.SECRET) {
      json.remove("context");
    }
    return json;
  }

  private JsonNode fetch(String url, String method, String headersJson, @Nullable String body) {
    Set<String> allowed = program.allowedHosts();
    URI uri = URI.create(url);
    String host = uri.getHost() == null ? "" : uri.getHost();
    String hostPort = uri.getPort() < 0 ? host : host + ":" + uri.getPort();
    if (allowed == null || !(allowed.contains("*") || allowed.contains(host) || allowed.contains(hostPort))) {
      throw new IllegalArgumentException(
          "fetch to '" + hostPort + "' is not allowed; this tool's permissions.net allows " + (allowed == null ? "no hosts" : List.copyOf(allowed)));
    }
    if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
      throw new IllegalArgumentException("fetch supports http and https URLs only, not '" + uri.getScheme() + "'");
    }
    network.check("fetch", uri);
    CallScope scope = current;
    Duration left = scope == null ? Duration.ofSeconds(10) : scope.remaining();
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri)
            .timeout(left.isZero() ? Duration.ofMillis(1) : left)
            .method(method.toUpperCase(java.util.Locale.ROOT), body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    RcrtJson.parse(headersJson).properties().forEach(h -> request.header(h.getKey(), h.getValue().asText()));
    try {
      HttpResponse<byte[]> response = BoundedBody.send(HTTP, request.build(), left.isZero() ? Duration.ofMillis(1) : left, program.maxResponseBytes());
      ObjectNode out =
          RcrtJson.object().put("status", response.statusCode()).put("body", new String(response.body(), StandardCharsets.UTF_8));
      ObjectNode headers = out.putObject("headers");
      response.headers().map().forEach((k, v) -> headers.put(k, String.join(", ", v)));
      return out;
    } catch (BoundedBody.Failure f) {
      throw new IllegalArgumentException(
          "fetch " + uri + " failed: " + f.getMessage()
              + (f.kind() == BoundedBody.Failure.Kind.TOO_LARGE ? " (the tool's limits.max_response_bytes)" : ""));
    }
  }

  @Override
  public void close() {
    context.close(true);
  }
}
