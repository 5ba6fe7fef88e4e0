package dev.rcrt.tools.internal.builtin;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolContext;
import dev.rcrt.tools.ToolHandler;

/**
 * {@code timer}: {@code {seconds}} (0 to 60, fractions allowed) → {@code {waited, message}}. Waits
 * on the calling thread and stops early when the runner's watchdog interrupts it at the deadline.
 */
public final class Timer implements ToolHandler {
  @Override
  public JsonNode execute(JsonNode input, ToolContext context) throws InterruptedException {
    double seconds = input.path("seconds").asDouble();
    Thread.sleep(Math.round(seconds * 1000));
    return RcrtJson.object()
        .put("waited", seconds)
        .put("message", "Waited " + BuiltinText.number(seconds) + " seconds");
  }
}
