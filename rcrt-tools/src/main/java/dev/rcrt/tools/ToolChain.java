package dev.rcrt.tools;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.Principal;
import java.time.Duration;

/**
 * One call on its way through the {@link ToolRunner}'s links; what a {@link ToolInterceptor} sees.
 * Not thread-safe: a chain belongs to the call's thread.
 */
public interface ToolChain {

  /** The request as it reaches this link. */
  ToolRequest request();

  /**
   * The definition the call runs: resolved once, pinned to one breadcrumb id and version ({@link
   * ToolDefinition#sourceId()}, {@link ToolDefinition#sourceVersion()}).
   */
  ToolDefinition tool();

  /** Who asks: the host for direct calls, {@code agent:<id>} for agents, the request's writer for listeners. */
  Principal caller();

  /** The tool's time limit (its record's, else the runner's default). */
  Duration timeout();

  /**
   * {@code json} without any secret value the runner knows (those it resolved for calls, those
   * added with {@link ToolRunner#addSecretValue}): what an interceptor should put in a span or log
   * instead of the raw request input, which the tool must still get as it is. Responses reach
   * application interceptors already scrubbed.
   */
  JsonNode scrub(JsonNode json);

  /**
   * Passes the call to the next link and returns its response. The request may be replaced (for
   * example with rewritten input) but must keep its request id and tool name.
   *
   * @throws IllegalStateException if called a second time by the same link
   */
  ToolResponse proceed(ToolRequest request);
}
