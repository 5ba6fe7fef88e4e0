package dev.rcrt.langchain4j;

import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.service.tool.ToolProvider;
import dev.langchain4j.service.tool.ToolProviderRequest;
import dev.langchain4j.service.tool.ToolProviderResult;
import dev.rcrt.core.Principal;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import dev.rcrt.langchain4j.internal.Schemas;
import dev.rcrt.tools.ToolCallOptions;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;

/**
 * The store's tools as a LangChain4j {@link ToolProvider}, for {@code AiServices}: each request
 * discovers the tools anew (a tool written a moment ago is offered, an untrusted one never), and
 * each call runs through the {@link ToolRunner}'s chain (validation, secrets, approval, trust, the
 * {@code tool.request.v1}/{@code tool.response.v1} trail) for {@code agent:<agentId>}. A tool's
 * name is made safe for providers ({@code [a-zA-Z0-9_-]}, at most 64 characters: {@code
 * unit.convert} is offered as {@code unit_convert}). The executor returns the output as JSON text,
 * or {@code "Error: …"} with the chain's message, which the model can read and act on.
 *
 * <p>Thread-safe. The runner stays the caller's.
 */
public final class BreadcrumbToolProvider implements ToolProvider {
  private final ToolRunner runner;
  private final Principal caller;

  /**
   * @param agentId who the calls are recorded for ({@code agent:<agentId>}), such as {@code "support-bot"}
   */
  public BreadcrumbToolProvider(ToolRunner runner, String agentId) {
    this.runner = Objects.requireNonNull(runner, "runner");
    this.caller = Principal.agent(Objects.requireNonNull(agentId, "agentId"));
  }

  @Override
  public ToolProviderResult provideTools(ToolProviderRequest request) {
    ToolProviderResult.Builder result = ToolProviderResult.builder();
    Set<String> taken = new HashSet<>();
    for (ToolDefinition tool : runner.discovery().discover().items()) {
      String name = safeName(tool.name(), taken);
      ToolSpecification spec = ToolSpecification.builder().name(name).description(tool.description())
          .parameters(Schemas.parameters(tool.inputSchema())).build();
      result.add(spec, (call, memoryId) -> run(tool.name(), call.arguments()));
    }
    return result.build();
  }

  /** The tools can change between requests. */
  @Override
  public boolean isDynamic() {
    return true;
  }

  private String run(String tool, String arguments) {
    JsonNode input;
    try {
      input = arguments == null || arguments.isBlank() ? RcrtJson.object() : RcrtJson.parse(arguments);
    } catch (ValidationException e) {
      return "Error: the arguments for '" + tool + "' are not JSON: " + e.getMessage();
    }
    ToolResponse response = runner.call(ToolRequest.of(tool, input, caller.wire()), ToolCallOptions.by(caller));
    return response.success() ? RcrtJson.write(response.requireOutput()) : "Error: " + response.error() + " [" + response.errorCode() + "]";
  }

  /** {@code name} with characters providers refuse made {@code _}, cut to 64, made unique. */
  private static String safeName(String name, Set<String> taken) {
    String safe = name.replaceAll("[^a-zA-Z0-9_-]", "_");
    if (safe.length() > 64) {
      safe = safe.substring(0, 64);
    }
    String unique = safe;
    for (int n = 2; !taken.add(unique); n++) {
      String suffix = "_" + n;
      unique = safe.substring(0, Math.min(safe.length(), 64 - suffix.length())) + suffix;
    }
    return unique;
  }
}
