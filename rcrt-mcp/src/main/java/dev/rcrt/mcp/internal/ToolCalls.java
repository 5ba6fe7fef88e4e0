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
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

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
 * errors). A call that carries a {@code progressToken} gets a progress notification at once and
 * every second, counting milliseconds of the tool's time limit. The client's log level decides
 * which of the call's log notifications it receives. Thread-safe.
 */
public final class ToolCalls implements AutoCloseable {
  private static final Duration TICK = Duration.ofSeconds(1);

  private final ToolRunner runner;
  private final Duration defaultLimit;
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
    log(exchange, LoggingLevel.DEBUG, "running tool '" + offered.name() + "' for " + caller.wire());
    ScheduledFuture<?> progress = progress(exchange, request, offered);
    try {
      ToolResponse response = runner.call(ToolRequest.of(offered.name(), input, caller.wire()), ToolCallOptions.by(caller));
      if (!response.success()) {
        log(exchange, LoggingLevel.ERROR, "tool '" + offered.name() + "' failed: " + response.error());
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
      log(exchange, LoggingLevel.INFO, "tool '" + offered.name() + "' answered in " + response.executionTimeMs() + " ms");
      return result.build();
    } finally {
      if (progress != null) {
        progress.cancel(false);
      }
    }
  }

  /** Progress against the tool's time limit, when the client asked for it with a {@code progressToken}. */
  private @Nullable ScheduledFuture<?> progress(McpSyncServerExchange exchange, McpSchema.CallToolRequest request, ToolDefinition tool) {
    Object token = request.meta() == null ? null : request.meta().get("progressToken");
    if (token == null) {
      return null;
    }
    double total = (tool.timeout() != null ? tool.timeout() : defaultLimit).toMillis();
    long start = System.nanoTime();
    Runnable tick = () -> {
      double elapsed = Math.min(total, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
      try {
        exchange.progressNotification(
            McpSchema.ProgressNotification.builder(token, elapsed).total(total).message("running " + tool.name()).build());
      } catch (RuntimeException gone) {
        // the client went away; the call ends on its own deadline
      }
    };
    tick.run(); // on the calling thread, so it precedes the result on the request's stream
    return ticker.scheduleAtFixedRate(tick, TICK.toMillis(), TICK.toMillis(), TimeUnit.MILLISECONDS);
  }

  private static void log(McpSyncServerExchange exchange, LoggingLevel level, String text) {
    try {
      exchange.loggingNotification(McpSchema.LoggingMessageNotification.builder().level(level).logger("rcrt.tools").data(text).build());
    } catch (RuntimeException gone) {
      // a client that cannot take notifications still gets its result
    }
  }

  @Override
  public void close() {
    ticker.shutdownNow();
  }
}
