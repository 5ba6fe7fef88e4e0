package dev.rcrt.tools.internal.builtin;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolContext;
import dev.rcrt.tools.ToolHandler;

/** {@code echo}: {@code {message}} → {@code {echo}}. */
public final class Echo implements ToolHandler {
  @Override
  public JsonNode execute(JsonNode input, ToolContext context) {
    return RcrtJson.object().put("echo", input.path("message").asText());
  }
}
