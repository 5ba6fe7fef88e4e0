package dev.rcrt.tools.js.internal.worker;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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

/**
 * One GraalJS context running one version of one tool's code, under {@link
 * SandboxPolicy#CONSTRAINED}: no I/O, no host class lookup, no threads, no {@code Java}, {@code
 * Polyglot}, {@code require}, {@code process}, {@code print}, {@code load} or {@code
 * loadWithNewGlobal}. {@code console} output goes to a
 * capped buffer the worker hands back with the result, so it can never reach the result itself.
 *
 * <p>The tool's {@code context} argument is RCRT's: {@code {request: {id, tool, requestedBy,
 * workspace, agentId, trigger_event}, secrets, config, api}}. {@code secrets} holds only the
 * secrets the tool declares; {@code trigger_event} (the request's breadcrumb as an RCRT event) is
 * fetched when first read. {@code api} offers {@code getBreadcrumb(id)}, {@code
 * searchBreadcrumbs(query, limit?)} (a selector, or RCRT's {@code {schema_name, tag, tags, limit,
 * offset}}), {@code vectorSearch({q, nn, schema_name, tag})}, {@code createBreadcrumb(payload)},
 * {@code updateBreadcrumb(id, version, updates)}, {@code deleteBreadcrumb(id, version?)} and
 * {@code getSecret(id, reason)} / {@code decryptSecret(id, reason)} (each {@code {value}}); {@code
 * fetch} exists only when the tool's {@code permissions.net} allows any host. Each of those is a
 * request to the host ({@link HostBridge}), which holds the store, the secrets and the network, and
 * checks every request against the calling tool's rights and deadline.
 *
 * <p>Timers: {@code setTimeout}, {@code setInterval}, {@code clearTimeout} and {@code
 * clearInterval} are driven by the call's own event loop ({@link #runEventLoop}), at most {@value
 * #MAX_TIMERS} pending, and die with the call; a string instead of a function is refused.
 *
 * <p>Time: the module's evaluation and each call are cancelled at their limit ({@link
 * Context#close(boolean) close(true)}, which guest code cannot catch). One guest can still resist
 * it: a recursion that catches its own stack overflow keeps GraalJS from reaching a safepoint, and
 * no in-process means ends it; the host kills the whole worker process then. Memory: see {@link
 * #watchAllocations}.
 *
 * <p>Not thread-safe: a context runs one call and is then closed.
 */
final class JsSandbox implements AutoCloseable {
  /** The host's side of {@code context.api} and {@code fetch}. */
  interface HostBridge {
    /**
     * Runs one host operation for the guest, or sends one notification (which has no answer).
     *
     * @param op one of {@link #HOST_OPERATIONS} or {@link #NOTIFICATIONS}
     * @param args its arguments: strings, or null for an argument the guest left out
     * @return {@code {"value": …}} or {@code {"error": "…"}} as JSON text; {@code {"value": null}}
     *     for a notification
     */
    String call(String op, List<@Nullable Object> args);
  }

  private static final int CONSOLE_LIMIT = 64 * 1024;
  private static final long SAMPLE_MS = 10;
  /** The most timers one call may have pending; each holds its callback and arguments. */
  private static final int MAX_TIMERS = 10_000;
  /** The most progress and log notifications one call sends the host (which keeps 1,000 and reports the drop). */
  private static final int MAX_NOTES = 1_001;

  /** {@code prelude.js}, with its timer cap filled in. */
  private static final String PRELUDE = prelude();
  /** The prelude's source name, which stack traces show; the tool's errors name the tool's own frames instead. */
  private static final String PRELUDE_NAME = "rcrt-prelude.js";

  private static String prelude() {
    try (java.io.InputStream in = JsSandbox.class.getResourceAsStream("prelude.js")) {
      if (in == null) {
        throw new IllegalStateException("prelude.js is missing from the rcrt-tools-js jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8)
          .replace("MAX_TIMERS", String.valueOf(MAX_TIMERS)).replace("MAX_NOTES", String.valueOf(MAX_NOTES));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }


  private final JsProgram program;
  private final GuestEngine engine;
  private final ByteArrayOutputStream console = new ByteArrayOutputStream();
  private final Context context;
  private final Value handler;
  private final Value call;
  private final Value runTimers;
  private volatile boolean running;
  /** Set by the stopper when the deadline passed; read by the calling thread. */
  private volatile boolean timedOut;
  /** Set by the memory sampler when this call allocated past its budget. */
  private volatile boolean overBudget;

  /**
   * Creates the context and evaluates the tool's module, within the tool's time limit.
   *
   * @throws ToolException {@code tool_definition_invalid} for a syntax error (line and column), a
   *     module without the handler export, or one whose evaluation throws or passes the time limit
   */
  JsSandbox(JsProgram program, GuestEngine engine, HostBridge host) {
    this.program = program;
    this.engine = engine;
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
            .engine(engine.engine())
            .sandbox(SandboxPolicy.CONSTRAINED)
            .allowHostAccess(HostAccess.CONSTRAINED)
            .allowCreateThread(false)
            .option("js.esm-eval-returns-exports", "true")
            .option("js.print", "false") // print/printErr would write past the console log's cap
            .option("js.load", "false") // load/loadWithNewGlobal evaluate other sources
            .resourceLimits(ResourceLimits.newBuilder().statementLimit(program.statementLimit(), null).build())
            .out(sink)
            .err(sink)
            .build();
    running = true;
    ScheduledFuture<?> guard = engine.watchdog().schedule(this::requestStop, program.evaluationMillis(), TimeUnit.MILLISECONDS);
    try {
      Value exports =
          context.eval(
              Source.newBuilder("js", program.javascript(), program.tool() + ".mjs")
                  .mimeType("application/javascript+module")
                  .buildLiteral());
      Value fn = exports.getMember(program.handler());
      if (fn == null || !fn.canExecute()) {
        throw new ToolException(
            ToolErrorCode.TOOL_DEFINITION_INVALID,
            "tool '" + program.tool() + "' code does not export a function '" + program.handler()
                + "'; write `export async function " + program.handler() + "(input, context) { … }`");
      }
      this.handler = fn;
      Value prelude = context.eval(Source.newBuilder("js", PRELUDE, PRELUDE_NAME).buildLiteral()).execute(bridge(host), program.fetch());
      this.call = prelude.getMember("call");
      this.runTimers = prelude.getMember("runTimers");
    } catch (PolyglotException | IllegalStateException e) {
      context.close(true);
      if (timedOut) {
        throw new ToolException(
            ToolErrorCode.TOOL_TIMEOUT, // time is to blame, not the record: retriable
            "tool '" + program.tool() + "' code took longer than " + program.evaluationMillis() + " ms to evaluate");
      }
      if (e instanceof PolyglotException p) {
        throw new ToolException(ToolErrorCode.TOOL_DEFINITION_INVALID, "tool '" + program.tool() + "' code " + describe(p));
      }
      throw e;
    } catch (RuntimeException e) {
      context.close(true);
      throw e;
    } finally {
      running = false;
      guard.cancel(false);
    }
  }

  /**
   * Runs the handler once, cancelling it when {@code budget} has passed.
   *
   * @param input the input, as JSON text; likewise {@code request}, {@code secrets} and {@code config}
   * @param limitMillis the tool's time limit, which a timeout's message names
   * @return the handler's result as JSON text
   * @throws ToolException {@code tool_timeout}, {@code tool_memory_limit}, or {@code tool_failed}
   *     with the guest's error and its location
   */
  String call(String input, String request, String secrets, String config, Duration budget, long limitMillis) {
    long deadline = System.nanoTime() + budget.toNanos();
    running = true;
    ScheduledFuture<?> guard = engine.watchdog().schedule(this::requestStop, budget.toMillis(), TimeUnit.MILLISECONDS);
    @Nullable ScheduledFuture<?> memory = watchAllocations(Thread.currentThread());
    try {
      Value promise = call.execute(handler, input, request, secrets, config);
      String[] settled = new String[1];
      promise.invokeMember("then", (ProxyExecutable) args -> settled[0] = args[0].asString());
      runEventLoop(settled, deadline, limitMillis);
      JsonNode outcome = RcrtJson.parse(settled[0]);
      if (outcome.has("error")) {
        throw new ToolException(ToolErrorCode.TOOL_FAILED, "tool '" + program.tool() + "' " + outcome.get("error").asText());
      }
      return outcome.get("value").asText();
    } catch (PolyglotException | IllegalStateException e) {
      // IllegalStateException: the context was cancelled while the call was between guest steps
      if (overBudget) {
        throw memoryLimit();
      }
      if (timedOut) {
        throw new ToolException(ToolErrorCode.TOOL_TIMEOUT, "tool '" + program.tool() + "' timed out after " + limitMillis + " ms");
      }
      if (!(e instanceof PolyglotException p)) {
        throw e;
      }
      if (p.isResourceExhausted() || p.isCancelled()) {
        throw new ToolException(
            ToolErrorCode.TOOL_TIMEOUT, "tool '" + program.tool() + "' ran more than " + program.statementLimit() + " statements and was stopped");
      }
      throw new ToolException(ToolErrorCode.TOOL_FAILED, "tool '" + program.tool() + "' " + describe(p));
    } finally {
      running = false;
      guard.cancel(false);
      if (memory != null) {
        memory.cancel(false);
      }
    }
  }

  /**
   * The call's event loop: until the handler's Promise settles, runs the timer due first (each in
   * its own turn, so the Promise jobs it starts run before the next), sleeping until one is due.
   * Timers never outlive the call: a Promise that waits on no timer fails at once, and one whose
   * next timer is due only after the deadline times out at once instead of sleeping into it.
   */
  private void runEventLoop(String[] settled, long deadline, long limitMillis) {
    while (settled[0] == null) {
      long wait = runTimers.execute().asLong();
      if (settled[0] != null) {
        return;
      }
      if (wait < 0) {
        throw new ToolException(
            ToolErrorCode.TOOL_FAILED,
            "tool '" + program.tool() + "': " + program.handler() + "'s Promise never settled; nothing it could wait for is"
                + " pending (no timer, and host calls answer at once)");
      }
      if (wait > 0) {
        if (System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(wait) > deadline) {
          throw new ToolException(
              ToolErrorCode.TOOL_TIMEOUT,
              "tool '" + program.tool() + "' timed out: it waits on a timer due in " + wait + " ms, after its time limit of "
                  + limitMillis + " ms");
        }
        try {
          Thread.sleep(wait);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new ToolException(ToolErrorCode.TOOL_FAILED, "tool '" + program.tool() + "' was interrupted while it waited on a timer");
        }
      }
    }
  }

  /** Hands the stop to a stopper thread, so the watchdog never waits on a guest. */
  private void requestStop() {
    if (running) {
      engine.stopper().execute(this::stop);
    }
  }

  /**
   * Cancels the context: the guest cannot catch a cancellation, and the context is gone afterwards.
   * Waits, on this stopper thread, until the guest has left.
   */
  private void stop() {
    if (!running) {
      return;
    }
    timedOut = !overBudget;
    try {
      context.close(true);
    } catch (RuntimeException e) {
      // already closed or closing: the call ends either way
    }
  }

  /**
   * Memory, within the worker's own heap: GraalJS community edition cannot cap a context's heap, so
   * the budget is an allocation budget, enforced from outside. The watchdog samples HotSpot's count
   * of bytes the calling thread has allocated ({@code com.sun.management.ThreadMXBean
   * #getThreadAllocatedBytes}) every {@link #SAMPLE_MS} ms, and stops the guest once this call has
   * allocated more than {@code limits.memory_mb} (default {@link JsProgram#DEFAULT_MEMORY_MB}). The
   * trade-off: it counts everything allocated, garbage included, so a tool that churns through
   * short-lived objects needs a budget above its live size; in return it costs one read of a
   * counter per sample. A guest that fills the worker's heap faster than a sample ends the worker
   * ({@code -XX:+ExitOnOutOfMemoryError}), which the host reports the same way; the host's own heap
   * is never touched. Where the JVM does not count allocations, only the time limit and the
   * worker's heap apply (and null is returned).
   */
  private @Nullable ScheduledFuture<?> watchAllocations(Thread caller) {
    if (!(java.lang.management.ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean threads)
        || !threads.isThreadAllocatedMemorySupported() || !threads.isThreadAllocatedMemoryEnabled()) {
      return null;
    }
    long id = caller.getId();
    long start = threads.getThreadAllocatedBytes(id);
    long budget = program.memoryBytes();
    return engine.watchdog().scheduleAtFixedRate(
        () -> {
          if (running && !overBudget && threads.getThreadAllocatedBytes(id) - start > budget) {
            overBudget = true;
            engine.stopper().execute(this::stop);
          }
        },
        SAMPLE_MS, SAMPLE_MS, TimeUnit.MILLISECONDS);
  }

  private ToolException memoryLimit() {
    return new ToolException(
        ToolErrorCode.TOOL_MEMORY_LIMIT,
        "tool '" + program.tool() + "' allocated more than " + program.memoryBytes() / (1024 * 1024)
            + " MB (limits.memory_mb) and was stopped");
  }

  /** What the guest printed so far, at most 64 KiB, and empties the buffer. */
  String console() {
    synchronized (console) {
      String text = console.toString(StandardCharsets.UTF_8);
      console.reset();
      return text;
    }
  }

  private static String describe(PolyglotException e) {
    var location = e.getSourceLocation();
    String where = location == null ? "" : " at line " + location.getStartLine() + ", column " + location.getStartColumn();
    String kind = e.isSyntaxError() ? "has a syntax error" : "failed";
    return kind + where + ": " + e.getMessage();
  }

  /** What the guest may ask the host; see {@code JsHostCalls}. */
  static final List<String> HOST_OPERATIONS =
      List.of("get", "search", "vector", "create", "update", "delete", "secret", "trigger", "fetch", "sample", "elicit");
  /** What the guest tells the host without waiting for an answer (the call's progress and log messages). */
  static final List<String> NOTIFICATIONS = List.of("progress", "log");

  /** The {@code host} object the prelude sees: each member forwards to the host. */
  private static ProxyObject bridge(HostBridge host) {
    Map<String, Object> members = new java.util.HashMap<>();
    for (String op : HOST_OPERATIONS) {
      members.put(op, forward(host, op));
    }
    for (String op : NOTIFICATIONS) {
      members.put(op, forward(host, op));
    }
    return ProxyObject.fromMap(members);
  }

  private static ProxyExecutable forward(HostBridge host, String op) {
    return a -> {
      List<@Nullable Object> args = new java.util.ArrayList<>(a.length);
      for (Value v : a) {
        args.add(v.isNull() ? null : v.isString() ? v.asString() : v.fitsInLong() ? (Object) v.asLong() : v.toString());
      }
      return host.call(op, args);
    };
  }

  @Override
  public void close() {
    context.close(true);
  }
}
