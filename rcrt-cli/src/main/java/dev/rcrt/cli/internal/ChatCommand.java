package dev.rcrt.cli.internal;

import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.AgentExecutor;
import dev.rcrt.agent.LlmConfig;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.Subscription;
import dev.rcrt.core.ValidationException;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.llm.LlmException;
import dev.rcrt.llm.OpenAiCompatibleLlmClient;
import dev.rcrt.tools.SecretResolver;
import dev.rcrt.tools.ToolRunner;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
    name = "chat",
    description = {
      "Answer MESSAGE with an agent that discovers its tools from breadcrumbs, then exit.",
      "Without MESSAGE, read one message per line from stdin and keep the session (/exit to stop).",
      "The API key comes from RCRT_API_KEY, else OPENAI_API_KEY or OPENROUTER_API_KEY.",
      "With no --base-url and no key, an offline demo model is used (announced on stderr)."
    })
public final class ChatCommand implements Callable<Integer> {
  private final Cli cli;

  @Spec CommandSpec spec;

  @Mixin StoreOptions breadcrumbs;

  @Mixin ApprovalOption approval;

  @Mixin TrustOption trust;

  @Option(names = "--base-url", paramLabel = "URL", description = "OpenAI-compatible API base, e.g. https://api.openai.com/v1, https://openrouter.ai/api/v1, http://localhost:11434/v1. Default: $RCRT_BASE_URL, else chosen by which key is set.")
  @Nullable String baseUrl;

  @Option(names = "--model", paramLabel = "NAME", description = "Model id; overrides the agent definition's model.")
  @Nullable String model;

  @Option(names = "--agent", paramLabel = "ID", defaultValue = "default-chat-assistant", description = "agent_id of the agent definition to run (default: ${DEFAULT-VALUE}).")
  String agentId = "default-chat-assistant";

  @Option(names = "--session", paramLabel = "ID", description = "Session id (default: a new random id).")
  @Nullable String session;

  @Option(names = "--max-rounds", paramLabel = "N", defaultValue = "10", description = "Model calls allowed per turn (default: ${DEFAULT-VALUE}).")
  int maxRounds = 10;

  @Option(names = "--stream", description = "Print the answer's text as the model produces it (stream: true).")
  boolean stream;

  @Option(names = "--tool-mode", paramLabel = "MODE", defaultValue = "direct",
      converter = ToolModes.class,
      description = "direct (run tools in this process, the default) or event (write tool.request.v1 records for"
          + " ./rcrt runner processes on the same --store to answer; on the in-memory store this process answers).")
  AgentExecutor.ToolMode toolMode = AgentExecutor.ToolMode.DIRECT;

  /** {@code direct} or {@code event}. */
  static final class ToolModes implements picocli.CommandLine.ITypeConverter<AgentExecutor.ToolMode> {
    @Override
    public AgentExecutor.ToolMode convert(String value) {
      return switch (value) {
        case "direct" -> AgentExecutor.ToolMode.DIRECT;
        case "event" -> AgentExecutor.ToolMode.EVENT;
        default -> throw new picocli.CommandLine.TypeConversionException("expected direct or event, found '" + value + "'");
      };
    }
  }

  @Option(names = "--trace", paramLabel = "FILE",
      description = "Write the run's spans (invoke_agent, chat, execute_tool, after the OpenTelemetry GenAI conventions; no prompt or tool content unless --trace-content) to FILE as OTLP JSON, one line per span.")
  @Nullable Path trace;

  @Option(names = "--trace-content",
      description = "with --trace: put the conversation and the tools' arguments and results on the spans (the content the trail records; off by default)")
  boolean traceContent;

  @Option(names = "--dump", paramLabel = "FILE", description = "At exit, write every breadcrumb in the store to FILE as JSON Lines: the audit trail of the run.")
  @Nullable Path dump;

  @Parameters(arity = "0..*", paramLabel = "MESSAGE", description = "The message; several words are joined with spaces.")
  List<String> message = List.of();

  public ChatCommand(Cli cli) {
    this.cli = cli;
  }

  /** The model client with chat spans whose content is scrubbed of the runner's secrets, when tracing. */
  private LlmClient traced(LlmClient model, ToolRunner runner, @Nullable TraceFile tracing) {
    return tracing == null ? model : tracing.telemetry().instrument(model, providerName(model), runner);
  }

  @Override
  public Integer call() throws IOException {
    if (maxRounds < 1) {
      throw new ParameterException(spec.commandLine(), "--max-rounds must be at least 1, found " + maxRounds);
    }
    checkEndpoint();
    try (Workspace workspace = new Workspace(breadcrumbs, cli);
        TraceFile tracing = trace == null ? null : new TraceFile(trace, traceContent)) {
      AgentDefinition agent = workspace.agent(agentId);
      if (model != null) {
        agent = agent.withModel(model);
      }
      LlmClient model = llm(agent, workspace);
      try (ToolRunner runner = workspace.runner(approval.handler(cli), trust.policy(),
              b -> {
                if (tracing != null) {
                  b.addInterceptor(tracing.telemetry().toolInterceptor());
                }
              });
          Subscription local = localRunner(runner, workspace);
          AgentExecutor executor = executor(agent, traced(model, runner, tracing), runner, tracing)) {
        String sessionId = session != null ? session : UUID.randomUUID().toString();
        if (!message.isEmpty()) {
          print(executor.ask(sessionId, String.join(" ", message)).message());
          return 0;
        }
        return repl(executor, sessionId);
      } finally {
        if (dump != null) {
          workspace.dump(dump);
        }
      }
    }
  }

  /**
   * With {@code --tool-mode event} on the in-memory store nobody else can answer, so this process
   * listens itself; on a shared store the {@code ./rcrt runner} processes answer.
   */
  private Subscription localRunner(ToolRunner runner, Workspace workspace) {
    boolean inProcess = toolMode == AgentExecutor.ToolMode.EVENT && workspace.store() instanceof InMemoryBreadcrumbStore;
    return inProcess ? runner.listen() : () -> {};
  }

  private AgentExecutor executor(AgentDefinition agent, LlmClient llm, ToolRunner runner, @Nullable TraceFile tracing) {
    AgentExecutor.Builder builder = AgentExecutor.builder(llm, runner).agent(agent).maxRounds(maxRounds);
    if (tracing != null) {
      builder.observer(tracing.telemetry().agentObserver());
    }
    if (toolMode == AgentExecutor.ToolMode.EVENT) {
      builder.toolMode(AgentExecutor.ToolMode.EVENT, Duration.ofSeconds(120));
    }
    if (stream) {
      builder.streamListener(text -> {
        cli.out().print(text);
        cli.out().flush();
      });
    }
    return builder.build();
  }

  private int repl(AgentExecutor executor, String sessionId) throws IOException {
    while (true) {
      if (cli.interactive()) {
        cli.err().print("you> ");
        cli.err().flush();
      }
      String line = cli.in().readLine();
      if (line == null || line.strip().equals("/exit") || line.strip().equals("/quit")) {
        return 0;
      }
      if (line.isBlank()) {
        continue;
      }
      try {
        print(executor.ask(sessionId, line.strip()).message());
      } catch (LlmException e) {
        cli.note(e.getMessage());
      }
    }
  }

  /** Prints the answer, or, when it was streamed, ends its line. */
  private void print(String answer) {
    cli.out().println(stream ? "" : answer);
  }


  /** The GenAI {@code gen_ai.provider.name} of the model endpoint: well-known names, else the host. */
  private String providerName(LlmClient llm) {
    String url = endpoint();
    if (llm instanceof DemoLlmClient || url == null && apiKey() == null) {
      return "rcrt.offline_demo";
    }
    String host = url == null ? (cli.env().get("OPENROUTER_API_KEY") != null && cli.env().get("OPENAI_API_KEY") == null ? "openrouter.ai" : "api.openai.com")
        : java.net.URI.create(url).getHost();
    if (host == null) {
      return "openai";
    }
    return host.endsWith("openai.com") ? "openai" : host.endsWith("openrouter.ai") ? "openrouter" : host.endsWith("azure.com") ? "azure.ai.openai" : host;
  }

  /** {@code --model} needs a real endpoint: a usage error before anything is opened. */
  private void checkEndpoint() {
    if (model != null && endpoint() == null && apiKey() == null) {
      throw new ParameterException(
          spec.commandLine(),
          "--model " + model + " needs a real endpoint: pass --base-url URL (and set RCRT_API_KEY if it needs a key),"
              + " or set OPENAI_API_KEY or OPENROUTER_API_KEY; without them chat uses the offline demo model");
    }
  }

  private @Nullable String endpoint() {
    return baseUrl != null ? baseUrl : cli.env().get("RCRT_BASE_URL");
  }

  private @Nullable String apiKey() {
    return firstEnv("RCRT_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY");
  }

  /**
   * The model client: the endpoint and key given, else the offline demo. With an endpoint and no
   * key, an RCRT agent's {@code llm_config_id} config may name the key's secret ({@code
   * apiKeySecretId}), read from the environment.
   */
  private LlmClient llm(AgentDefinition agent, Workspace workspace) {
    String key = apiKey();
    String url = endpoint();
    if (url == null && key == null) {
      cli.note("no --base-url and no API key: using the offline demo model (it knows a few phrases;"
          + " set OPENAI_API_KEY or pass --base-url for a real model)");
      return new DemoLlmClient();
    }
    if (key == null && agent.llmConfigId() != null) {
      key = configuredKey(agent, workspace);
    }
    if (url == null) {
      url = cli.env().get("OPENROUTER_API_KEY") != null && cli.env().get("OPENAI_API_KEY") == null
              && cli.env().get("RCRT_API_KEY") == null
          ? "https://openrouter.ai/api/v1"
          : "https://api.openai.com/v1";
    }
    try {
      return OpenAiCompatibleLlmClient.builder(url).apiKey(key).build();
    } catch (LlmException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  /** The value of the secret an agent's trusted llm config names for its key, or null. */
  private @Nullable String configuredKey(AgentDefinition agent, Workspace workspace) {
    String secret;
    try {
      secret = LlmConfig.resolve(agent, workspace.store(), trust.policy()).apiKeySecretId();
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

  private @Nullable String firstEnv(String... names) {
    for (String name : names) {
      String value = cli.env().get(name);
      if (value != null && !value.isBlank()) {
        return value;
      }
    }
    return null;
  }
}
