package dev.rcrt.mcp.internal;

import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;

/**
 * The official SDK's stdio client transport with two things the SDK leaves to its caller:
 *
 * <ul>
 *   <li>the server starts from an empty environment, to which the SDK adds its default variables
 *       ({@code HOME}, {@code LOGNAME}, {@code PATH}, {@code SHELL}, {@code TERM}, {@code USER}, or
 *       the Windows set) and the address's {@code env}; a plain {@link ProcessBuilder} would hand
 *       the child every variable of this process, the model key included. The host may name more
 *       variables to pass on;
 *   <li>{@link #untilExit} fails a request in flight as soon as the server process ends, with the
 *       last lines of its standard error, instead of at the request's time limit.
 * </ul>
 *
 * Thread-safe.
 */
public final class StdioServerTransport extends StdioClientTransport {
  /** How many of the server's last standard-error lines an error quotes, and how long each may be. */
  private static final int ERROR_LINES = 10;
  private static final int LINE_CHARS = 300;

  private final Set<String> inherited;
  private final Deque<String> lastErrors = new ArrayDeque<>();
  private final CompletableFuture<String> exited = new CompletableFuture<>();
  /** The requests {@link #untilExit} waits for now: failed all at once when the process ends. */
  private final Set<CompletableFuture<?>> waiting = ConcurrentHashMap.newKeySet();

  public StdioServerTransport(ServerParameters parameters, Set<String> inherited) {
    super(parameters, McpJsonDefaults.getMapper());
    this.inherited = Set.copyOf(inherited);
    setStdErrorHandler(this::remember);
  }

  @Override
  protected ProcessBuilder getProcessBuilder() {
    ProcessBuilder builder = new ProcessBuilder();
    Map<String, String> environment = builder.environment();
    environment.clear();
    for (String name : inherited) {
      String value = System.getenv(name);
      if (value != null) {
        environment.put(name, value);
      }
    }
    return builder;
  }

  /**
   * Connects as the SDK does (it starts the process), then starts a thread of its own that waits
   * for the process's end and ends with it. The SDK has set its process once its connect completed.
   */
  @Override
  public Mono<Void> connect(Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
    return super.connect(handler).then(Mono.fromRunnable(() -> {
      Thread watcher = new Thread(this::watch, "rcrt-mcp-server-exit");
      watcher.setDaemon(true);
      watcher.start();
    }));
  }

  /**
   * Runs {@code request} (a blocking SDK call bounded by its request timeout) on a thread of its
   * own and returns its answer, unless the server's process ends first: then it fails at once with
   * "the server process exited" and the end of the process's standard error, and the SDK call is
   * abandoned (closing the session ends it).
   *
   * @throws IllegalStateException when the process has ended, or the caller was interrupted
   */
  public <T> T untilExit(Supplier<T> request) {
    CompletableFuture<T> answer = new CompletableFuture<>();
    waiting.add(answer); // before the check: an exit from now on fails it
    try {
      if (exited.isDone()) {
        throw ended(exited.join());
      }
      Thread caller = new Thread(() -> {
        try {
          answer.complete(request.get());
        } catch (Throwable t) {
          answer.completeExceptionally(t);
        }
      }, "rcrt-mcp-request");
      caller.setDaemon(true);
      caller.start();
      try {
        return answer.get();
      } catch (InterruptedException e) {
        caller.interrupt();
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for the MCP server", e);
      } catch (ExecutionException e) {
        throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
      }
    } finally {
      waiting.remove(answer);
    }
  }

  private static IllegalStateException ended(String why) {
    return new IllegalStateException("the server process " + why);
  }

  private void remember(String line) {
    synchronized (lastErrors) {
      lastErrors.addLast(line.length() > LINE_CHARS ? line.substring(0, LINE_CHARS) + "…" : line);
      while (lastErrors.size() > ERROR_LINES) {
        lastErrors.removeFirst();
      }
    }
  }

  /** Waits for the end of the process the SDK started, then fails every request waiting for it. */
  private void watch() {
    try {
      awaitForExit();
      // the SDK's reader of standard error gives its last lines after the end (it tells nobody when
      // it has read them all): a short grace for them, once, not a loop
      TimeUnit.MILLISECONDS.sleep(100);
    } catch (InterruptedException | RuntimeException e) {
      return;
    }
    String errors;
    synchronized (lastErrors) {
      errors = String.join(" | ", lastErrors);
    }
    String why = "exited" + (errors.isEmpty() ? "" : "; its standard error ended: " + errors);
    exited.complete(why);
    waiting.forEach(f -> f.completeExceptionally(ended(why)));
  }
}
