package dev.rcrt.tools.js.internal.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolException;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The JavaScript worker process: evaluates tool code for its host, one call at a time, each in a
 * fresh GraalJS context, and exits when the host closes its standard input.
 *
 * <p>The protocol is one JSON object per line, UTF-8, on standard input (from the host) and standard
 * output (to the host); anything else the process prints goes to standard error.
 *
 * <ul>
 *   <li>worker: {@code {"ready": true}} once the engine is up.
 *   <li>host: {@code {"load": <program>}}; worker: {@code {"loaded": true}} or {@code {"error":
 *       {"code", "message"}}} — evaluates the module once, so a broken module fails its load.
 *   <li>host: {@code {"call": {"checksum", "program"?, "input", "request", "secrets", "config",
 *       "timeout_ms", "limit_ms"}}}; the worker may ask {@code {"host": op, "args": […]}} any number of times,
 *       each answered {@code {"reply": "<{value|error} JSON text>"}}, and send {@code {"notify": op,
 *       "args": […]}} (the call's progress and log messages), which get no answer; it ends with {@code {"done":
 *       "<result JSON text>", "console": "…"}}, {@code {"error": {"code", "message"}, "console":
 *       "…"}}, or {@code {"need": "program"}} when it no longer holds the program named by the
 *       checksum (the host then sends the call again with it).
 * </ul>
 */
public final class JsWorkerMain {
  /** Programs kept, most recently used last; the host re-sends one that was dropped. */
  private static final int PROGRAMS = 64;

  private final BufferedReader in;
  private final PrintStream out;
  private final GuestEngine engine = new GuestEngine();
  private final Map<String, Spares> programs = new LinkedHashMap<>(16, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Spares> eldest) {
      if (size() > PROGRAMS) {
        eldest.getValue().close();
        return true;
      }
      return false;
    }
  };

  private JsWorkerMain(BufferedReader in, PrintStream out) {
    this.in = in;
    this.out = out;
  }

  /** Entry point of the worker process; takes no arguments. */
  public static void main(String[] args) throws IOException {
    PrintStream frames = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
    System.setOut(System.err); // whatever else prints (a logging backend, say) must not mix into the frames
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    new JsWorkerMain(in, frames).run();
    System.exit(0);
  }

  private void run() throws IOException {
    warmUp();
    send(RcrtJson.object().put("ready", true));
    String line;
    while ((line = in.readLine()) != null) {
      JsonNode frame = RcrtJson.parse(line);
      if (frame.has("load")) {
        load(JsProgram.fromJson(frame.get("load")));
      } else if (frame.has("call")) {
        call(frame.get("call"));
      }
    }
    engine.close();
  }

  /**
   * Pays for warming the engine (its first context, the prelude, a module) before the worker says
   * it is ready, within the host's start-up allowance: otherwise the first tool loaded here pays it
   * out of its evaluation time, which on a loaded machine it ran past.
   */
  private void warmUp() {
    JsProgram warm = new JsProgram("warm-up", "execute", "export function execute() { return null; }", "warm-up", 1_000_000, false,
        JsProgram.DEFAULT_MEMORY_MB * 1024 * 1024, 60_000); // the host allows a worker 60 s to start (WorkerPool.STARTUP)
    try (JsSandbox ignored = new JsSandbox(warm, engine, (op, args) -> "{\"value\":null}")) {
      // created and evaluated: warm
    } catch (ToolException e) {
      // a worker that cannot evaluate this reports it on the first real load
    }
  }

  private void load(JsProgram program) {
    try {
      Spares spares = new Spares(program);
      spares.ready.add(spares.create());
      Spares old = programs.put(program.checksum(), spares);
      if (old != null) {
        old.close();
      }
      send(RcrtJson.object().put("loaded", true));
    } catch (ToolException e) {
      send(error(e, ""));
    }
  }

  private void call(JsonNode call) {
    String checksum = call.path("checksum").asText();
    if (call.has("program")) {
      programs.computeIfAbsent(checksum, c -> new Spares(JsProgram.fromJson(call.get("program"))));
    }
    Spares spares = programs.get(checksum);
    if (spares == null) {
      send(RcrtJson.object().put("need", "program"));
      return;
    }
    JsSandbox sandbox;
    try {
      sandbox = spares.take();
    } catch (ToolException e) {
      send(error(e, ""));
      return;
    }
    try {
      String result =
          sandbox.call(
              RcrtJson.write(call.get("input")),
              RcrtJson.write(call.get("request")),
              RcrtJson.write(call.get("secrets")),
              RcrtJson.write(call.get("config")),
              Duration.ofMillis(call.path("timeout_ms").asLong()),
              call.path("limit_ms").asLong());
      send(RcrtJson.object().put("done", result).put("console", sandbox.console()));
    } catch (ToolException e) {
      send(error(e, sandbox.console()));
    } finally {
      engine.preparer().execute(sandbox::close);
    }
  }

  private static ObjectNode error(ToolException e, String console) {
    ObjectNode frame = RcrtJson.object();
    frame.putObject("error").put("code", e.code()).put("message", e.getMessage());
    return frame.put("console", console);
  }

  /** Asks the host to run a guest's {@code context.api} or {@code fetch} request; runs on the calling thread. */
  private String host(String op, List<@Nullable Object> args) {
    boolean notification = JsSandbox.NOTIFICATIONS.contains(op);
    ObjectNode frame = RcrtJson.object().put(notification ? "notify" : "host", op);
    ArrayNode list = frame.putArray("args");
    args.forEach(a -> list.add(a == null ? RcrtJson.nodes().nullNode() : RcrtJson.toTree(a)));
    send(frame);
    if (notification) {
      return "{\"value\":null}";
    }
    try {
      String line = in.readLine();
      if (line == null) {
        throw new UncheckedIOException(new IOException("the host closed the worker's input"));
      }
      return RcrtJson.parse(line).path("reply").asText();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private synchronized void send(JsonNode frame) {
    out.print(RcrtJson.write(frame));
    out.print('\n');
    out.flush();
  }

  /** Fresh contexts of one program version, each for one call; one is prepared ahead. */
  private final class Spares {
    final JsProgram program;
    final java.util.concurrent.BlockingQueue<JsSandbox> ready = new java.util.concurrent.LinkedBlockingQueue<>();
    volatile boolean closed;

    Spares(JsProgram program) {
      this.program = program;
    }

    JsSandbox create() {
      return new JsSandbox(program, engine, JsWorkerMain.this::host);
    }

    /** A ready context, or one made now; the next is prepared in the background. */
    JsSandbox take() {
      JsSandbox fresh = ready.poll();
      engine.preparer().execute(() -> {
        if (!closed && ready.isEmpty()) {
          try {
            JsSandbox next = create();
            if (closed) {
              next.close();
            } else {
              ready.add(next);
            }
          } catch (ToolException e) {
            // the call that takes no spare creates its own context and reports the failure
          }
        }
      });
      return fresh != null ? fresh : create();
    }

    void close() {
      closed = true;
      JsSandbox s;
      while ((s = ready.poll()) != null) {
        s.close();
      }
    }
  }
}
