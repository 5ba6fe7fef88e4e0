package dev.rcrt.tools.internal.builtin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolContext;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolHandler;
import java.util.concurrent.ThreadLocalRandom;

/**
 * {@code random}: {@code {min = 0, max = 100, count = 1}} → {@code {numbers}}, whole numbers drawn
 * uniformly from {@code [min, max]} inclusive, as RCRT's tool does.
 */
public final class RandomNumbers implements ToolHandler {
  @Override
  public JsonNode execute(JsonNode input, ToolContext context) {
    long min = (long) Math.ceil(input.path("min").asDouble(0));
    long max = (long) Math.floor(input.path("max").asDouble(100));
    int count = input.path("count").asInt(1);
    if (min > max) {
      throw new ToolException(
          ToolErrorCode.TOOL_FAILED, "random: min (" + min + ") is greater than max (" + max + "); swap them");
    }
    ArrayNode numbers = RcrtJson.array();
    for (int i = 0; i < count; i++) {
      numbers.add(ThreadLocalRandom.current().nextLong(min, max + 1));
    }
    ObjectNode out = RcrtJson.object();
    out.set("numbers", numbers);
    return out;
  }
}
