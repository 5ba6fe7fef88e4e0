package dev.rcrt.mcp.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.Principal;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.spi.DaemonThreads;
import dev.rcrt.tools.ToolCallOptions;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.LoggingLevel;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * One MCP {@code tools/call}, run through the tool chain as any other caller's: the input and
 * output validated, secrets resolved at call time, approval and the trust policy asked, a {@code
 * tool.request.v1} and a {@code tool.response.v1} recorded, with the MCP client as the requester
 * ({@code agent:mcp:<clientInfo.name>}).
 *
 * <p>A success is the output's content blocks ({@link McpContent}: text, image, audio, embedded
 * resource, resource link), or else a text block (the output as JSON, or the string itself), plus
 * {@code structuredContent} when the output is an object; a tool failure is an {@code isError: true}
 * result with the error text (protocol errors, such as an unknown tool, are the SDK's JSON-RPC
 * errors). What the tool reports and asks while it runs goes to the client ({@link McpExchange}):
 * progress (the clock's until the tool reports its own), log messages, sampling and elicitation.
 * The client's log level decides which log notifications it receives. Thread-safe.
 */
public final class ToolCalls implements AutoCloseable {
  private static final String LOGGER = "rcrt.tools";

  private final ToolRunner runner;
  private final Duration defaultLimit;
  /** Runs the progress clock of every call under way. */
  private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(DaemonThreads.factory("rcrt-mcp-progress"));

  /**
   * @param defaultLimit the runner's limit for tools that set none, reported as the progress total
   */
  public ToolCalls(ToolRunner runner, Duration defaultLimit) {
    this.runner = runner;
    this.defaultLimit = defaultLimit;
  }

  /** Runs {@code request} for the client of {@code exchange}. */
  public CallToolResult call(McpSyncServerExchange exchange, McpSchema.CallToolRequest request, ToolDefinition offered) {
    McpSchema.Implementation client = exchange.getClientInfo();
    Principal caller = Principal.agent("mcp:" + (client == null || client.name() == null ? "unknown" : client.name()));
    JsonNode input = RcrtJson.toTree(request.arguments() == null ? Map.of() : request.arguments());
    log(exchange, LoggingLevel.DEBUG, LOGGER, "running tool '" + offered.name() + "' for " + caller.wire());
    try (McpExchange back = new McpExchange(exchange, request, offered.name(), offered.timeout() != null ? offered.timeout() : defaultLimit, ticker)) {
      ToolResponse response =
          runner.call(ToolRequest.of(offered.name(), input, caller.wire()), ToolCallOptions.by(caller).withExchange(back));
      if (!response.success()) {
        log(exchange, LoggingLevel.ERROR, LOGGER, "tool '" + offered.name() + "' failed: " + response.error());
        return CallToolResult.builder().addTextContent(response.error() + " [" + response.errorCode() + "]").isError(true).build();
      }
      JsonNode output = response.requireOutput();
      CallToolResult.Builder result = CallToolResult.builder().isError(false);
      java.util.Optional<java.util.List<McpSchema.Content>> blocks = McpContent.of(output);
      if (blocks.isPresent()) {
        result.content(blocks.get());
      } else {
        result.addTextContent(output.isTextual() ? output.asText() : RcrtJson.write(output));
      }
      if (output.isObject()) {
        result.structuredContent(RcrtJson.convert(output, Map.class));
      }
      log(exchange, LoggingLevel.INFO, LOGGER, "tool '" + offered.name() + "' answered in " + response.executionTimeMs() + " ms");
      return result.build();
    }
  }

  /** Sends one log notification from {@code logger}; a client that cannot take it still gets its result. */
  static void log(McpSyncServerExchange exchange, LoggingLevel level, String logger, String text) {
    try {
      exchange.loggingNotification(McpSchema.LoggingMessageNotification.builder().level(level).logger(logger).data(text).build());
    } catch (RuntimeException gone) {
      // notifications are best effort
    }
  }

  @Override
  public void close() {
    ticker.shutdownNow();
  }
}
