package dev.rcrt.mcp.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolExchange;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * One MCP {@code tools/call}'s way back to its client, as the tool chain's {@link ToolExchange}:
 *
 * <ul>
 *   <li><b>Progress</b>, only when the request carries {@code _meta.progressToken}: 0 at once; then,
 *       until the tool reports progress itself, the clock does, every second, in milliseconds of the
 *       tool's time limit; the tool's first report ends the clock's. A value not above the last one
 *       sent is not sent (MCP requires progress to increase), so a tool that reports after the
 *       clock's first tick is heard once its values pass the milliseconds the clock reported.
 *   <li><b>Log messages</b>: {@code notifications/message} with logger {@code tool:<name>}; the SDK
 *       drops those below the level the client set with {@code logging/setLevel}.
 *   <li><b>Sampling</b> ({@code sampling/createMessage}) and <b>elicitation</b> ({@code
 *       elicitation/create}), only to a client that declared the capability; the runner bounds
 *       the wait by the call's deadline and interrupts the asking thread at it.
 * </ul>
 *
 * Thread-safe; {@link #close()} ends the clock's progress.
 */
final class McpExchange implements ToolExchange, AutoCloseable {
  private static final Duration TICK = Duration.ofSeconds(1);

  private final McpSyncServerExchange exchange;
  private final String tool;
  private final @Nullable Object progressToken;
  private @Nullable ScheduledFuture<?> clock;
  private double lastProgress = Double.NEGATIVE_INFINITY;
  private boolean toolReports;

  /**
   * @param limit the tool's time limit: the progress clock's total
   * @param ticker runs the progress clock
   */
  McpExchange(McpSyncServerExchange exchange, McpSchema.CallToolRequest request, String tool, Duration limit, ScheduledExecutorService ticker) {
    this.exchange = exchange;
    this.tool = tool;
    this.progressToken = request.meta() == null ? null : request.meta().get("progressToken");
    if (progressToken != null) {
      long start = System.nanoTime();
      double total = limit.toMillis();
      clockProgress(0, total); // on the calling thread, so it precedes the result on the request's stream
      Runnable tick = () -> clockProgress(Math.min(total, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)), total);
      synchronized (this) {
        clock = ticker.scheduleAtFixedRate(tick, TICK.toMillis(), TICK.toMillis(), TimeUnit.MILLISECONDS);
      }
    }
  }

  /** The clock's report, unless the tool reports its own: checked and sent under one lock, so no tick follows the tool's first report. */
  private synchronized void clockProgress(double elapsed, double total) {
    if (!toolReports) {
      send(elapsed, total, "running " + tool);
    }
  }

  @Override
  public void progress(double progress, @Nullable Double total, @Nullable String message) {
    if (progressToken == null) {
      return;
    }
    synchronized (this) {
      toolReports = true;
      if (clock != null) {
        clock.cancel(false);
      }
    }
    send(progress, total, message);
  }

  private void send(double progress, @Nullable Double total, @Nullable String message) {
    synchronized (this) {
      if (progress <= lastProgress) {
        return;
      }
      lastProgress = progress;
      try {
        McpSchema.ProgressNotification.Builder n = McpSchema.ProgressNotification.builder(progressToken, progress).message(message);
        if (total != null) {
          n.total(total);
        }
        exchange.progressNotification(n.build());
      } catch (RuntimeException gone) {
        // the client went away; the call ends on its own deadline
      }
    }
  }

  @Override
  public void log(LogLevel level, String message) {
    ToolCalls.log(exchange, McpSchema.LoggingLevel.valueOf(level.name()), "tool:" + tool, message);
  }

  @Override
  public Sampled sample(Sampling request) {
    McpSchema.ClientCapabilities offered = exchange.getClientCapabilities();
    if (offered == null || offered.sampling() == null) {
      throw unsupported("sampling (sampling/createMessage)");
    }
    McpSchema.CreateMessageRequest.Builder ask = McpSchema.CreateMessageRequest.builder()
        .messages(request.messages().stream()
            .map(m -> new McpSchema.SamplingMessage(McpSchema.Role.valueOf(m.role().toUpperCase(java.util.Locale.ROOT)), new McpSchema.TextContent(m.text())))
            .toList())
        .maxTokens(request.maxTokens());
    if (request.systemPrompt() != null) {
      ask.systemPrompt(request.systemPrompt());
    }
    McpSchema.CreateMessageResult answer = await("sampling", () -> exchange.createMessage(ask.build()));
    String text = answer.content() instanceof McpSchema.TextContent t ? t.text()
        : "(the client's model answered with " + (answer.content() == null ? "nothing" : answer.content().type() + " content") + ")";
    return new Sampled(text, answer.model(), answer.stopReason() == null ? null : RcrtJson.toTree(answer.stopReason()).asText());
  }

  @Override
  public Elicited elicit(Elicitation request) {
    McpSchema.ClientCapabilities offered = exchange.getClientCapabilities();
    if (offered == null || offered.elicitation() == null) {
      throw unsupported("elicitation (elicitation/create)");
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> schema = RcrtJson.convert(request.requestedSchema(), Map.class);
    McpSchema.ElicitResult answer =
        await("elicitation", () -> exchange.createElicitation(McpSchema.ElicitFormRequest.builder(request.message(), schema).build()));
    Elicited.Action action = answer.action() == null ? Elicited.Action.CANCEL : Elicited.Action.valueOf(answer.action().name());
    JsonNode content = action == Elicited.Action.ACCEPT && answer.content() != null ? RcrtJson.toTree(answer.content()) : null;
    return new Elicited(action, content);
  }

  /** Asks the client and waits (the runner bounds the wait by the call's deadline); the client's error is the tool's. */
  private <T> T await(String what, Supplier<T> question) {
    try {
      return question.get();
    } catch (McpError error) {
      String why = error.getJsonRpcError() != null ? error.getJsonRpcError().message() : error.getMessage();
      throw new ToolException(ToolErrorCode.TOOL_FAILED, "tool '" + tool + "': the MCP client answered its " + what + " with an error: " + why);
    }
  }

  private ToolException unsupported(String what) {
    McpSchema.Implementation client = exchange.getClientInfo();
    return new ToolException(ToolErrorCode.TOOL_UNSUPPORTED, "tool '" + tool + "' asked for " + what + ", which the MCP client '"
        + (client == null ? "unknown" : client.name()) + "' did not declare in its capabilities");
  }

  @Override
  public synchronized void close() {
    if (clock != null) {
      clock.cancel(false);
    }
  }
}
