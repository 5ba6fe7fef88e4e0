package dev.rcrt.cli.internal;

import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.LlmConfig;
import dev.rcrt.core.ValidationException;
import dev.rcrt.llm.DemoLlmClient;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.llm.LlmException;
import dev.rcrt.llm.OpenAiCompatibleLlmClient;
import dev.rcrt.tools.SecretResolver;
import dev.rcrt.tools.ToolTrustPolicy;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The model options shared by the commands that run agents ({@code chat}, {@code runner --agents},
 * {@code runs resume}): {@code --base-url}, {@code --model} and the key variables ({@code
 * RCRT_API_KEY}, else {@code OPENAI_API_KEY} or {@code OPENROUTER_API_KEY}); with none of them, the
 * offline demo model.
 */
public final class ModelOptions {
  @Option(names = "--base-url", paramLabel = "URL", description = "OpenAI-compatible API base, e.g. https://api.openai.com/v1, https://openrouter.ai/api/v1, http://localhost:11434/v1. Default: $RCRT_BASE_URL, else chosen by which key is set.")
  @Nullable String baseUrl;

  @Option(names = "--model", paramLabel = "NAME", description = "Model id; overrides the agent definition's model.")
  @Nullable String model;

  /** {@code --model} needs a real endpoint: a usage error before anything is opened. */
  public void check(CommandSpec spec, Cli cli) {
    if (model != null && endpoint(cli) == null && apiKey(cli) == null) {
      throw new ParameterException(
          spec.commandLine(),
          "--model " + model + " needs a real endpoint: pass --base-url URL (and set RCRT_API_KEY if it needs a key),"
              + " or set OPENAI_API_KEY or OPENROUTER_API_KEY; without them the offline demo model is used");
    }
  }

  /** {@code agent} with {@code --model}, when given. */
  public AgentDefinition apply(AgentDefinition agent) {
    return model != null ? agent.withModel(model) : agent;
  }

  private @Nullable String endpoint(Cli cli) {
    return baseUrl != null ? baseUrl : cli.env().get("RCRT_BASE_URL");
  }

  private static @Nullable String apiKey(Cli cli) {
    return firstEnv(cli, "RCRT_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY");
  }

  /**
   * The model client: the endpoint and key given, else the offline demo (announced on stderr).
   * With an endpoint and no key, an RCRT agent's {@code llm_config_id} config may name the key's
   * secret ({@code apiKeySecretId}), read from the environment.
   */
  public LlmClient client(CommandSpec spec, Cli cli, AgentDefinition agent, dev.rcrt.core.BreadcrumbStore store, ToolTrustPolicy policy) {
    String key = apiKey(cli);
    String url = endpoint(cli);
    if (url == null && key == null) {
      cli.note("no --base-url and no API key: using the offline demo model (it knows a few phrases;"
          + " set OPENAI_API_KEY or pass --base-url for a real model)");
      return new DemoLlmClient();
    }
    if (key == null && agent.llmConfigId() != null) {
      key = configuredKey(cli, agent, store, policy);
    }
    if (url == null) {
      url = keyedEndpoint(cli);
    }
    try {
      return OpenAiCompatibleLlmClient.builder(url).apiKey(key).build();
    } catch (LlmException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  /** The GenAI {@code gen_ai.provider.name} of the model endpoint: well-known names, else the host. */
  /**
   * The executors of a serving command ({@code a2a serve}, {@code console}): one per version of an
   * agent's definition, each on its own model client (this command's model options applied) and on
   * {@code runner}, with {@code maxRounds} and run lease {@code lease}.
   */
  public java.util.function.Function<AgentDefinition, dev.rcrt.agent.AgentExecutor> executors(
      CommandSpec spec, Cli cli, Workspace workspace, ToolTrustPolicy policy, dev.rcrt.tools.ToolRunner runner, int maxRounds,
      java.time.Duration lease) {
    return agent -> dev.rcrt.agent.AgentExecutor.builder(client(spec, cli, agent, workspace.store(), policy), runner)
        .agent(apply(agent)).maxRounds(maxRounds).runLease(lease).build();
  }

  public String providerName(Cli cli, LlmClient llm) {
    String url = endpoint(cli);
    if (llm instanceof DemoLlmClient || url == null && apiKey(cli) == null) {
      return "rcrt.offline_demo";
    }
    return dev.rcrt.opentelemetry.RcrtTelemetry.providerName(java.net.URI.create(url != null ? url : keyedEndpoint(cli)));
  }

  /** With a key and no base URL: OpenRouter when its key is the only one set, else OpenAI. */
  private static String keyedEndpoint(Cli cli) {
    return cli.env().get("OPENROUTER_API_KEY") != null && cli.env().get("OPENAI_API_KEY") == null
            && cli.env().get("RCRT_API_KEY") == null
        ? "https://openrouter.ai/api/v1"
        : "https://api.openai.com/v1";
  }

  /** The value of the secret an agent's trusted llm config names for its key, or null. */
  private static @Nullable String configuredKey(Cli cli, AgentDefinition agent, dev.rcrt.core.BreadcrumbStore store, ToolTrustPolicy policy) {
    String secret;
    try {
      secret = LlmConfig.resolve(agent, store, policy).apiKeySecretId();
    } catch (ValidationException e) {
      return null; // the turn reports what is wrong with the config
    }
    if (secret == null) {
      return null;
    }
    String name = secret.startsWith("secret:") ? secret.substring("secret:".length()) : secret;
    String value = SecretResolver.environment(cli.env()).resolve(name).orElse(null);
    if (value == null) {
      cli.note("agent '" + agent.agentId() + "' llm config names secret '" + name + "' for the API key, which is not set in the environment");
    }
    return value;
  }

  private static @Nullable String firstEnv(Cli cli, String... names) {
    for (String name : names) {
      String value = cli.env().get(name);
      if (value != null && !value.isBlank()) {
        return value;
      }
    }
    return null;
  }
}
