package dev.rcrt.tools.internal.chain;

import dev.rcrt.tools.ToolChain;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.internal.loader.ToolLoader;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Loads the tool (once per breadcrumb version: its compiled schemas and code), checks the input
 * against the input schema on the way in and the output against the output schema on the way out.
 */
final class ValidateLink implements RealToolChain.Link {
  private final ToolLoader loader;
  private final Listeners listeners;

  ValidateLink(ToolLoader loader, Listeners listeners) {
    this.loader = loader;
    this.listeners = listeners;
  }

  @Override
  public String name() {
    return "validate";
  }

  @Override
  public ToolResponse intercept(ToolChain chain) {
    CallState call = ((RealToolChain) chain).call();
    ToolDefinition tool = chain.tool();
    ToolLoader.LoadedTool loaded = loader.load(tool, call.handler);
    call.loaded = loaded;
    check(tool, "input", loaded.inputViolations(chain.request().input()), "tool_input_invalid");
    listeners.inputValidated(chain.request(), tool);
    ToolResponse response = chain.proceed(chain.request());
    if (response.success() && response.output() != null) {
      check(tool, "output", loaded.outputViolations(response.output()), "tool_output_invalid");
    }
    return response;
  }

  private static void check(ToolDefinition tool, String which, List<String> violations, String code) {
    if (!violations.isEmpty()) {
      String listed =
          violations.stream().map(v -> v.startsWith(": ") ? v.substring(2) : v).collect(Collectors.joining("; "));
      String sep = violations.get(0).startsWith(": ") ? ": " : " ";
      throw new ToolException(code, "tool '" + tool.name() + "' " + which + sep + listed);
    }
  }
}
