package dev.rcrt.tools;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.BreadcrumbStore;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a running tool knows about its invocation: RCRT's {@code context} argument {@code {request,
 * api, secrets}} for Java tools.
 *
 * <p>{@link #toString()} names the request only: secrets and configuration are never printed.
 *
 * @param requestId the {@code tool.request.v1} request id; the response carries it as {@code
 *     request_id}
 * @param tool the tool's name
 * @param requestedBy who asked (an agent id), or null
 * @param store the store the request came from, as the tool may use it: every write is stamped
 *     {@code tool:<name>} (see {@link dev.rcrt.core.Principal}), and tools, tool configs, agents and
 *     schema definitions are refused unless the {@link ToolTrustPolicy} trusts that writer
 * @param config the tool's configuration object from its newest trusted {@code tool.config.v1}
 *     breadcrumb (a copy), with every {@code secret:NAME} value replaced by the secret; an empty
 *     object when there is none
 * @param secrets the values of the secrets the tool declares in {@code required_secrets}, by name;
 *     copied. Resolved for this call only.
 * @param exchange the way back to whoever called: progress, log messages, sampling and elicitation
 *     ({@link #progress}, {@link #log}, {@link #sample}, {@link #elicit}); {@link ToolExchange#none()}
 *     when the caller takes nothing back
 */
public record ToolContext(
    String requestId,
    String tool,
    @Nullable String requestedBy,
    BreadcrumbStore store,
    JsonNode config,
    Map<String, String> secrets,
    ToolExchange exchange) {

  /** Validates required fields and copies the secrets. */
  public ToolContext {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(tool, "tool");
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(exchange, "exchange");
    secrets = Map.copyOf(secrets);
  }

  /** A context whose caller takes nothing back ({@link ToolExchange#none()}). */
  public ToolContext(String requestId, String tool, @Nullable String requestedBy, BreadcrumbStore store, JsonNode config, Map<String, String> secrets) {
    this(requestId, tool, requestedBy, store, config, secrets, ToolExchange.none());
  }

  /**
   * Reports how far the call has come to whoever called (an MCP client that asked with a {@code
   * progressToken}); see {@link ToolExchange#progress}.
   */
  public void progress(double progress, @Nullable Double total, @Nullable String message) {
    exchange.progress(progress, total, message);
  }

  /** Sends a log message to whoever called, scrubbed of secret values; see {@link ToolExchange#log}. */
  public void log(ToolExchange.LogLevel level, String message) {
    exchange.log(level, message);
  }

  /**
   * Asks the caller's model and waits for its answer; see {@link ToolExchange#sample}.
   *
   * @throws ToolException {@code tool_unsupported} when the caller offers no sampling
   */
  public ToolExchange.Sampled sample(ToolExchange.Sampling request) {
    return exchange.sample(request);
  }

  /**
   * Asks the caller's user for values and waits for the answer; see {@link ToolExchange#elicit}.
   *
   * @throws ToolException {@code tool_unsupported} when the caller offers no elicitation
   */
  public ToolExchange.Elicited elicit(ToolExchange.Elicitation request) {
    return exchange.elicit(request);
  }

  @Override
  public String toString() {
    return "ToolContext[requestId=" + requestId + ", tool=" + tool + ", requestedBy=" + requestedBy
        + ", secrets=" + secrets.keySet() + "]";
  }
}
