package dev.rcrt.tools.internal.chain;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.Principal;
import dev.rcrt.core.TimeSource;
import dev.rcrt.core.spi.Throwables;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolExchange;
import dev.rcrt.tools.ToolHandler;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.internal.CallScope;
import dev.rcrt.tools.internal.loader.ToolLoader;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * What the links of one call learn on the way in. Owned by the call's thread; not thread-safe.
 */
public final class CallState {
  private final TimeSource time;
  private final long startNanos;
  final Principal caller;
  /** Tags for both breadcrumbs (the session tag), without the dispatch tag. */
  final List<String> tags;
  /** The stored request, for requests a listener runs; null when the runner writes it. */
  final @Nullable Breadcrumb stored;
  /** A definition pinned by the caller, or named by the stored request; null to resolve by name. */
  final @Nullable ToolDefinition pinned;
  /** The breadcrumb id and version a stored request pins, or null. */
  final @Nullable String pinnedId;
  final long pinnedVersion;
  final @Nullable ToolHandler handler;
  /** The caller's way back ({@link dev.rcrt.tools.ToolCallOptions#exchange()}); none for a stored request. */
  final ToolExchange exchange;

  ToolRequest request;
  @Nullable ToolDefinition tool;
  /** The tool's current breadcrumb when resolution read it (pinned calls); its writer is checked. */
  @Nullable Breadcrumb source;
  ToolLoader.@Nullable LoadedTool loaded;
  @Nullable CallScope scope;
  @Nullable JsonNode config;

  CallState(
      TimeSource time, ToolRequest request, Principal caller, List<String> tags, @Nullable Breadcrumb stored,
      @Nullable ToolDefinition pinned, @Nullable String pinnedId, long pinnedVersion, @Nullable ToolHandler handler,
      ToolExchange exchange) {
    this.time = time;
    this.startNanos = time.nanoTime();
    this.request = request;
    this.caller = caller;
    this.tags = List.copyOf(tags);
    this.stored = stored;
    this.pinned = pinned;
    this.pinnedId = pinnedId;
    this.pinnedVersion = pinnedVersion;
    this.handler = handler;
    this.exchange = exchange;
  }

  /** The tool's name: the resolved one, else the requested one. */
  String toolName() {
    return tool != null ? tool.name() : request.tool();
  }

  /** A fatal error a link or the tool threw, rethrown once the response is recorded; null when none. */
  @Nullable Error fatal;

  /** Keeps {@code t} to rethrow after the bookkeeping if it is {@linkplain Throwables#isFatal fatal}. */
  void noteFatal(Throwable t) {
    if (fatal == null && Throwables.isFatal(t)) {
      fatal = (Error) t;
    }
  }

  long elapsedMs() {
    return TimeUnit.NANOSECONDS.toMillis(time.nanoTime() - startNanos);
  }

  ToolResponse failure(ToolException e) {
    return ToolResponse.failure(request.requestId(), toolName(), e, elapsedMs());
  }
}
