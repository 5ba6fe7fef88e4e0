package dev.rcrt.tools.internal.chain;

import dev.rcrt.core.spi.Throwables;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolEventListener;
import dev.rcrt.tools.ToolExchange;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import java.util.List;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The host's event listeners as one; a listener that throws is logged and skipped. */
final class Listeners implements ToolEventListener {
  private static final Logger LOG = LoggerFactory.getLogger(Listeners.class);
  private final List<ToolEventListener> all;

  Listeners(List<ToolEventListener> all) {
    this.all = List.copyOf(all);
  }

  private void each(Consumer<ToolEventListener> event) {
    for (ToolEventListener l : all) {
      try {
        event.accept(l);
      } catch (Throwable e) {
        Throwables.rethrowIfFatal(e);
        LOG.warn("tool event listener {} failed: {}", l.getClass().getName(), e.toString());
      }
    }
  }

  @Override
  public void callStart(ToolRequest request) {
    each(l -> l.callStart(request));
  }

  @Override
  public void toolResolved(ToolRequest request, ToolDefinition tool) {
    each(l -> l.toolResolved(request, tool));
  }

  @Override
  public void callDenied(ToolRequest request, ToolDefinition tool, String code) {
    each(l -> l.callDenied(request, tool, code));
  }

  @Override
  public void inputValidated(ToolRequest request, ToolDefinition tool) {
    each(l -> l.inputValidated(request, tool));
  }

  @Override
  public void callProgress(ToolRequest request, double progress, @Nullable Double total, @Nullable String message) {
    each(l -> l.callProgress(request, progress, total, message));
  }

  @Override
  public void callLog(ToolRequest request, ToolExchange.LogLevel level, String message) {
    each(l -> l.callLog(request, level, message));
  }

  @Override
  public void callFailed(ToolRequest request, ToolResponse response) {
    each(l -> l.callFailed(request, response));
  }

  @Override
  public void callEnd(ToolRequest request, ToolResponse response) {
    each(l -> l.callEnd(request, response));
  }
}
