package dev.rcrt.tools;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.TimeSource;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * A runtime for one {@code implementation.type}, added to a {@link ToolRunner} from outside
 * {@code rcrt-tools}: found on the classpath through {@link java.util.ServiceLoader} ({@code
 * META-INF/services/dev.rcrt.tools.ToolRuntime}) or given to {@link
 * ToolRunner.Builder#runtime(ToolRuntime)}. The chain around it is the same as for the built-in
 * types: the record's trust, approval, input and output validation, secrets, the deadline and the
 * recorded trail are the runner's; a runtime only turns an input into an output.
 *
 * <p>The JavaScript ({@code breadcrumb}, artifact {@code rcrt-tools-js}), container ({@code
 * container}, {@code rcrt-tools-docker}) and MCP ({@code mcp}, {@code rcrt-mcp}) types are runtimes
 * on this interface too: a tool whose type has no runtime on the classpath fails with {@code
 * tool_unsupported} naming the artifact to add.
 *
 * <p>Deadlines: unless {@link Loaded#enforcesDeadline()} says otherwise, the runner interrupts the
 * calling thread when the call's limit passes; a runtime must give up when interrupted.
 *
 * <p>Implementations must be thread-safe and have a public no-argument constructor to be found by
 * {@code ServiceLoader}. One instance may serve several runners; each runner calls {@link #close()}
 * on the runtimes it holds when it is closed, so a runtime must release only what it holds for
 * that use (or nothing, when what it holds is shared and outlives runners).
 */
public interface ToolRuntime extends AutoCloseable {

  /** The {@code implementation.type} this runtime runs, such as {@code "mcp"}. */
  String type();

  /**
   * Loads one version of a tool; called once per record version, before its first call.
   *
   * @throws ToolException naming what is missing or refused ({@code tool_definition_invalid},
   *     {@code tool_untrusted} when the {@link Services#policy()} refuses a capability)
   */
  Loaded load(ToolDefinition definition, Services services);

  /**
   * What {@link #load} would refuse in the record itself, found without starting anything or
   * touching the network; empty when nothing is wrong (used by {@code ./rcrt validate}).
   */
  default List<String> problems(ToolDefinition definition) {
    return List.of();
  }

  /** Releases what the runtime holds (processes, connections). Never throws. */
  @Override
  default void close() {}

  /** What the runner lends a runtime. */
  interface Services {
    /**
     * The runner's trust policy: to ask about {@link Capability capabilities} before using them,
     * and to check the writer of a record the runtime reads on its own behalf ({@link
     * ToolTrustPolicy#whyUntrusted}).
     */
    ToolTrustPolicy policy();

    /**
     * The runner's whole store, for records the runtime reads on its own behalf while loading (a
     * tool's code kept in another breadcrumb); check their writer through {@link #policy()} before
     * using them. What a call reads and writes goes through its {@link ToolContext#store()}.
     */
    BreadcrumbStore store();

    /** The limit of a call whose tool names none ({@link ToolRunner.Builder#defaultTimeout}). */
    Duration defaultTimeout();

    /**
     * Checks that the policy lets a tool connect to {@code uri}'s host (every address it resolves
     * to), as HTTP tools are checked.
     *
     * @param what names the connection in the error, such as {@code "MCP server"}
     * @throws ToolException {@code tool_untrusted} when it does not
     */
    void checkConnect(String what, URI uri);
  }

  /** One loaded version of one tool. */
  interface Loaded extends AutoCloseable {
    /**
     * Runs the tool on an input that passed its input schema.
     *
     * @return the output, which the runner then checks against the output schema
     * @throws ToolException for a failure the caller should read ({@code tool_failed}, …); any
     *     other exception is reported as {@code tool_failed} with its message
     * @throws Exception any other failure, reported as {@code tool_failed} with its message
     */
    JsonNode call(JsonNode input, Call call) throws Exception;

    /**
     * Whether {@link #call} stops by {@link Call#remaining()} on its own (a process killed, an
     * exchange cancelled) and reports {@code tool_timeout} itself; then the runner does not interrupt
     * the calling thread at the limit. Default false.
     */
    default boolean enforcesDeadline() {
      return false;
    }

    /** Releases this version's resources. Never throws. */
    @Override
    default void close() {}
  }

  /** One call. */
  interface Call {
    /** Who asked, the store view, the configuration and the declared secrets. */
    ToolContext context();

    /** Time left before the call's limit; zero once it has passed. */
    Duration remaining();

    /** The call's whole time limit, for messages such as "timed out after 30000 ms". */
    Duration limit();

    /**
     * The runner's time source ({@link ToolRunner.Builder#timeSource}), which {@link #remaining()}
     * is measured on: a runtime that waits between attempts (polling a remote task) waits on it, so
     * a test's clock moves its waits as it moves the call's deadline.
     */
    TimeSource time();

    /**
     * The value of secret {@code NAME} or {@code secret:NAME}, if the tool is granted it; the value
     * is then scrubbed from everything the call records.
     *
     * @throws ToolException {@code tool_secret_denied} or {@code tool_secret_missing}
     */
    String secret(String nameOrReference);

    /**
     * {@code text} with every secret value the runner has handed out replaced by {@code [secret]}:
     * for what the runtime logs or puts in an error message itself (a worker's error output, a
     * container's log). The call's output and error are scrubbed by the runner.
     */
    String scrub(String text);

    /**
     * Sends one HTTP request through the runner's client (which never follows redirects) and reads
     * the whole response, body included, within the call's time left and {@code maxBodyBytes}. The
     * address is not checked here: call {@link Services#checkConnect} first for any address a tool
     * record or its input named.
     *
     * @param maxBodyBytes the most body bytes to read, such as {@link
     *     ToolDefinition#maxResponseBytes()}
     * @throws ToolException {@code tool_timeout} at the limit (the exchange is cancelled), {@code
     *     tool_too_large} past the cap (nothing more is read), {@code tool_unreachable} when the
     *     connection could not be made or broke before the answer, {@code tool_failed} when
     *     interrupted
     */
    HttpResponse<byte[]> send(HttpRequest request, long maxBodyBytes);

    /**
     * {@link #send}, waiting at most {@code within} (and never past the call's limit): to keep time
     * for a last request after a long one, such as cancelling what a remote agent started when it
     * does not finish.
     *
     * @throws ToolException as {@link #send}; {@code tool_timeout} when {@code within} passes
     */
    HttpResponse<byte[]> send(HttpRequest request, long maxBodyBytes, Duration within);

    /**
     * {@link #send(HttpRequest, long, Duration)} for an answer that is a stream of server-sent
     * events ({@code text/event-stream}, as the WHATWG HTML standard defines it): the body is read
     * until the stream ends, or only up to the end of the first event whose data (its {@code data}
     * lines joined by LF) {@code stopAt} accepts, and the exchange is then closed. So a stream that
     * sends something wrong, or its last word, ends the call's wait at once, not at its deadline.
     *
     * @param stopAt asked with each event's data on the client's thread; must be quick
     * @throws ToolException as {@link #send}
     */
    HttpResponse<byte[]> sendEvents(HttpRequest request, long maxBodyBytes, Duration within, Predicate<String> stopAt);

    /**
     * One JSON exchange, as {@code http} tools make it: sends {@code body} as {@code
     * application/json} (no body when null) and returns the answer, which must be a 2xx with a JSON
     * content type and a JSON body; through {@link #send}, with its limits and errors.
     *
     * @param headers extra request headers; values are sent as given (resolve {@code secret:}
     *     references with {@link #secret} first)
     * @throws ToolException as {@link #send}, or {@code tool_failed} naming the status, content type
     *     or parse error with an excerpt of the body
     */
    JsonNode exchangeJson(String method, URI uri, Map<String, String> headers, @Nullable JsonNode body, long maxBodyBytes);
  }
}
