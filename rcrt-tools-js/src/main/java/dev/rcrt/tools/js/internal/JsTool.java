package dev.rcrt.tools.js.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.spi.BoundedLines;
import dev.rcrt.tools.ToolContext;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolRuntime;
import java.io.IOException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A JavaScript tool, run in a worker process ({@link WorkerPool}). Each call runs in a fresh
 * context of its own, so no call can see globals, patched prototypes or module state another call
 * left (another user's input, a rotated secret); the worker keeps a fresh context prepared ahead.
 * The host answers the guest's {@code context.api}, {@code fetch}, {@code context.sample} and {@code
 * context.elicit} requests, and passes its progress and log messages on ({@link JsHostCalls}), while
 * it waits.
 *
 * <p>Deadlines: the worker cancels a call at its limit; a guest that keeps the engine from reaching
 * a safepoint (a recursion catching its own stack overflow) is ended by killing its worker {@link
 * #GRACE} later. The time a call waits for a worker counts against its limit: queued behind busy
 * workers, or while one starts (the first call of a process, a call after a worker was killed); a
 * worker not up in time goes on starting for the next call. Loading the code evaluates the module
 * in an idle or starting worker (waiting up to {@link WorkerPool#STARTUP} for one to start); when
 * every worker is busy with a call it leaves that to the first call, on the call's time, so no call
 * waits behind busy workers beyond its limit. The code is the one read at load: every call of this
 * tool version runs it.
 */
final class JsTool implements ToolRuntime.Loaded {
  private static final Logger CONSOLE = LoggerFactory.getLogger("dev.rcrt.tools.js.console");
  /** How long past the limit the host waits for the worker to report a cancelled call, before killing it. */
  static final Duration GRACE = Duration.ofMillis(300);

  private final JsCode code;
  private final ToolRuntime.Services services;
  private final WorkerPool workers;

  /**
   * Loads the code: a worker evaluates the module once, so a broken one fails here (or, when every
   * worker is busy, fails its first call).
   *
   * @throws ToolException {@code tool_definition_invalid} for a syntax error, a missing handler
   *     export, or a module that throws or runs past the time limit while evaluated
   */
  JsTool(JsCode code, ToolRuntime.Services services, WorkerPool workers) {
    this.code = code;
    this.services = services;
    this.workers = workers;
    load(code);
  }

  private void load(JsCode code) {
    String tool = code.program().tool();
    WorkerProcess worker = workers.acquireUnlessAllBusy(tool, WorkerPool.STARTUP);
    if (worker == null) { // every worker is busy with a call: the first call evaluates the module, on its own time
      return;
    }
    boolean healthy = false;
    try {
      worker.send(RcrtJson.object().set("load", code.program().toJson()));
      JsonNode answer = worker.next(Duration.ofMillis(code.program().evaluationMillis()).plus(GRACE));
      if (answer == null) {
        throw died(tool, worker, code, text -> text);
      }
      healthy = true;
      if (answer.has("error")) {
        throw reported(answer);
      }
      worker.remember(code.program().checksum());
    } catch (BoundedLines.Failure f) {
      if (f.kind() == BoundedLines.Failure.Kind.WAITED_TOO_LONG) {
        throw new ToolException(
            ToolErrorCode.TOOL_TIMEOUT, "tool '" + tool + "' code took longer than " + code.program().evaluationMillis() + " ms to evaluate");
      }
      throw died(tool, worker, code, text -> text);
    } catch (IOException e) {
      throw died(tool, worker, code, text -> text);
    } catch (InterruptedException e) {
      throw interrupted(tool);
    } finally {
      release(worker, healthy);
    }
  }

  @Override
  public JsonNode call(JsonNode input, ToolRuntime.Call scope) {
    ToolContext context = scope.context();
    String tool = code.program().tool();
    Duration remaining = scope.remaining();
    long asked = System.nanoTime();
    WorkerProcess worker = workers.acquire(tool, remaining);
    // time spent waiting for a worker, queued behind busy ones or while one starts, is the call's
    Duration limit = remaining.minusNanos(System.nanoTime() - asked);
    if (limit.isNegative() || limit.isZero()) {
      workers.release(worker);
      throw new ToolException(
          ToolErrorCode.TOOL_TIMEOUT, "tool '" + tool + "' timed out after " + scope.limit().toMillis() + " ms waiting for a busy JavaScript worker");
    }
    JsHostCalls host = new JsHostCalls(code, services, scope, System.nanoTime() + limit.toNanos());
    ObjectNode call = RcrtJson.object().put("checksum", code.program().checksum());
    call.set("input", input);
    call.set("request", request(context));
    call.set("secrets", RcrtJson.toTree(context.secrets()));
    call.set("config", context.config());
    call.put("timeout_ms", limit.toMillis()).put("limit_ms", scope.limit().toMillis());
    boolean healthy = false;
    try {
      send(worker, call, code);
      while (true) {
        JsonNode frame = worker.next(host.remaining().plus(GRACE));
        if (frame == null) {
          throw died(tool, worker, code, scope::scrub);
        }
        if (frame.has("host")) {
          worker.send(RcrtJson.object().put("reply", RcrtJson.write(host.answer(frame.get("host").asText(), frame.path("args")))));
          continue;
        }
        if (frame.has("notify")) {
          host.notify(frame.get("notify").asText(), frame.path("args"));
          continue;
        }
        if (frame.has("need")) {
          call.set("program", code.program().toJson());
          send(worker, call, code);
          continue;
        }
        healthy = true;
        log(tool, frame.path("console").asText(""), scope);
        if (frame.has("error")) {
          throw reported(frame);
        }
        return RcrtJson.parse(frame.path("done").asText());
      }
    } catch (BoundedLines.Failure f) {
      if (f.kind() == BoundedLines.Failure.Kind.WAITED_TOO_LONG) {
        throw new ToolException(ToolErrorCode.TOOL_TIMEOUT, "tool '" + tool + "' timed out after " + scope.limit().toMillis() + " ms");
      }
      if (f.kind() == BoundedLines.Failure.Kind.TOO_LARGE) {
        throw new ToolException(ToolErrorCode.TOOL_TOO_LARGE, "tool '" + tool + "' returned more than " + WorkerProcess.MAX_FRAME_BYTES + " bytes");
      }
      throw died(tool, worker, code, scope::scrub);
    } catch (IOException e) {
      throw died(tool, worker, code, scope::scrub);
    } catch (InterruptedException e) {
      throw interrupted(tool);
    } finally {
      release(worker, healthy);
    }
  }

  /**
   * RCRT's {@code context.request}, less {@code trigger_event}, which the guest fetches when it reads
   * it: {@code {id, tool, requestedBy, workspace, agentId}}, {@code agentId} being who asked.
   */
  private static ObjectNode request(ToolContext context) {
    return RcrtJson.object()
        .put("id", context.requestId())
        .put("tool", context.tool())
        .put("requestedBy", context.requestedBy())
        .put("workspace", "workspace:tools")
        .put("agentId", context.requestedBy());
  }

  private static void send(WorkerProcess worker, ObjectNode call, JsCode code) throws IOException {
    if (!worker.knows(code.program().checksum())) {
      call.set("program", code.program().toJson());
    }
    worker.send(RcrtJson.object().set("call", call));
    worker.remember(code.program().checksum());
  }

  private void release(WorkerProcess worker, boolean healthy) {
    if (healthy) {
      workers.release(worker);
    } else {
      workers.discard(worker);
    }
  }

  /** The error a worker reported in a frame's {@code error: {code, message}}. */
  private static ToolException reported(JsonNode frame) {
    JsonNode error = frame.get("error");
    return new ToolException(error.path("code").asText(), error.path("message").asText());
  }

  /**
   * The worker stopped answering as it should: its heap ran out (it exits then), or it failed, and
   * what it said is scrubbed of secrets.
   */
  private ToolException died(String tool, WorkerProcess worker, JsCode code, java.util.function.UnaryOperator<String> scrub) {
    if (worker.exitCode() == WorkerProcess.OUT_OF_MEMORY) {
      return new ToolException(
          ToolErrorCode.TOOL_MEMORY_LIMIT,
          "tool '" + tool + "' filled the JavaScript worker's " + workers.heapMegabytes() + " MB heap and was stopped (limits.memory_mb is "
              + code.program().memoryBytes() / (1024 * 1024) + ")");
    }
    return new ToolException(ToolErrorCode.TOOL_FAILED, "tool '" + tool + "': the JavaScript worker failed (" + scrub.apply(worker.describeExit()) + ")");
  }

  private static ToolException interrupted(String tool) {
    Thread.currentThread().interrupt();
    return new ToolException(ToolErrorCode.TOOL_FAILED, "tool '" + tool + "' was interrupted while its JavaScript worker ran it");
  }

  private static void log(String tool, String console, ToolRuntime.Call scope) {
    if (!console.isEmpty()) {
      console.lines().forEach(line -> CONSOLE.info("tool '{}' console: {}", tool, scope.scrub(line)));
    }
  }

  @Override
  public boolean enforcesDeadline() {
    return true;
  }

  @Override
  public void close() {
    // the workers are shared; a worker forgets nothing it must, since every call has a fresh context
  }
}
