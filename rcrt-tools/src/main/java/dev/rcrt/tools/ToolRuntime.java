package dev.rcrt.tools;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * A runtime for one {@code implementation.type}, added to a {@link ToolRunner} from outside
 * {@code rcrt-tools}: found on the classpath through {@link java.util.ServiceLoader} ({@code
 * META-INF/services/dev.rcrt.tools.ToolRuntime}) or given to {@link
 * ToolRunner.Builder#runtime(ToolRuntime)}. The chain around it is the same as for the built-in
 * types: the record's trust, approval, input and output validation, secrets, the deadline and the
 * recorded trail are the runner's; a runtime only turns an input into an output.
 *
 * <p>Deadlines: the runner interrupts the calling thread when the call's limit passes; a runtime
 * must give up when interrupted. Implementations must be thread-safe; the runner closes its
 * runtimes when it is closed.
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
    /** The runner's trust policy, to ask about {@link Capability capabilities} before using them. */
    ToolTrustPolicy policy();

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
     */
    JsonNode call(JsonNode input, Call call) throws Exception;

    /** Releases this version's resources. Never throws. */
    @Override
    default void close() {}
  }

  /** One call. */
  interface Call {
    /** Who asked, the store view, the configuration and the declared secrets. */
    ToolContext context();

    /** Time left before the call's limit. */
    Duration remaining();

    /**
     * The value of secret {@code NAME} or {@code secret:NAME}, if the tool is granted it; the value
     * is then scrubbed from everything the call records.
     *
     * @throws ToolException {@code tool_secret_denied} or {@code tool_secret_missing}
     */
    String secret(String nameOrReference);
  }
}
