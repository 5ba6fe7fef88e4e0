package dev.rcrt.agent.internal.loop;

import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolResponse;

/** The text a model reads for a tool result: the output JSON, or the error and what to do. */
public final class ToolResults {
  private ToolResults() {}

  public static String text(ToolResponse result) {
    if (result.success()) {
      return RcrtJson.write(result.requireOutput());
    }
    String advice = ToolErrorCode.TOOL_INPUT_INVALID.is(result.errorCode()) ? " Fix the arguments and call the tool again." : "";
    return "Error: " + result.error() + "." + advice;
  }
}
