package dev.rcrt.tools.internal.chain;

import dev.rcrt.tools.ToolChain;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolErrorCode;
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
  private final long maxOutputBytes;

  ValidateLink(ToolLoader loader, Listeners listeners, long maxOutputBytes) {
    this.loader = loader;
    this.listeners = listeners;
    this.maxOutputBytes = maxOutputBytes;
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
    ToolResponse response;
    try {
      call.loaded = loaded;
      try {
        dev.rcrt.core.RcrtJson.checkFinite(chain.request().input()); // whatever path it came by (MCP, a host's tree)
      } catch (dev.rcrt.core.ValidationException beyondADouble) {
        throw new ToolException(ToolErrorCode.TOOL_INPUT_INVALID, "tool '" + tool.name() + "' input: " + beyondADouble.getMessage());
      }
      check(tool, "input", loaded.inputViolations(chain.request().input()), ToolErrorCode.TOOL_INPUT_INVALID);
      listeners.inputValidated(chain.request(), tool);
      response = chain.proceed(chain.request());
    } finally {
      call.loaded = null;
      loaded.release(); // an update or delete meanwhile closes the old code only now
    }
    if (response.success() && response.output() != null) {
      long max = maxOutputBytes(tool);
      if (tooLarge(response.output(), max)) {
        throw new ToolException(
            ToolErrorCode.TOOL_TOO_LARGE,
            "tool '" + tool.name() + "' returned more than " + max + " bytes of output; return less (or a reference to a"
                + " breadcrumb), or raise limits.max_output_bytes");
      }
      check(tool, "output", loaded.outputViolations(response.output()), ToolErrorCode.TOOL_OUTPUT_INVALID);
    }
    return response;
  }

  /** The tool's {@code limits.max_output_bytes}, else the runner's. */
  private long maxOutputBytes(ToolDefinition tool) {
    com.fasterxml.jackson.databind.JsonNode own = tool.context().path("limits").path("max_output_bytes");
    return own.canConvertToLong() && own.asLong() > 0 ? own.asLong() : maxOutputBytes;
  }

  /** Whether the output's compact JSON passes {@code max} bytes; stops writing as soon as it does. */
  private static boolean tooLarge(com.fasterxml.jackson.databind.JsonNode output, long max) {
    class Full extends RuntimeException {
      private static final long serialVersionUID = 1L;

      Full() {
        super(null, null, false, false);
      }
    }
    java.io.OutputStream counter =
        new java.io.OutputStream() {
          long written;

          @Override
          public void write(int b) {
            count(1);
          }

          @Override
          public void write(byte[] b, int off, int len) {
            count(len);
          }

          private void count(int n) {
            written += n;
            if (written > max) {
              throw new Full();
            }
          }
        };
    try {
      dev.rcrt.core.RcrtJson.write(counter, output);
      return false;
    } catch (Full full) {
      return true;
    } catch (java.io.IOException e) {
      return e.getCause() instanceof Full;
    }
  }

  private static void check(ToolDefinition tool, String which, List<String> violations, ToolErrorCode code) {
    if (!violations.isEmpty()) {
      String listed =
          violations.stream().map(v -> v.startsWith(": ") ? v.substring(2) : v).collect(Collectors.joining("; "));
      String sep = violations.get(0).startsWith(": ") ? ": " : " ";
      throw new ToolException(code, "tool '" + tool.name() + "' " + which + sep + listed);
    }
  }
}
