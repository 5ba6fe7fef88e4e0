package dev.rcrt.cli.internal;

import java.security.PublicKey;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.AgentExecutor;
import dev.rcrt.core.LoadReport;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.llm.ChatMessage;
import dev.rcrt.llm.ChatRequest;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolDiscovery;
import dev.rcrt.tools.ToolRunner;
import dev.rcrt.tools.ToolTrustPolicy;
import java.util.ArrayList;
import java.util.List;
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
    name = "tools",
    description = "Inspect the tools agents discover from breadcrumbs.")
public final class ToolsCommand extends GroupCommand {

  static LoadReport<ToolDefinition> discover(Cli cli, StoreOptions breadcrumbs) {
    try (Workspace workspace = Workspace.reading(breadcrumbs, cli)) {
      LoadReport<ToolDefinition> tools = new ToolDiscovery(workspace.store()).discover();
      tools.problems().forEach(p -> cli.note("tool skipped: " + p));
      return tools;
    }
  }

  @Command(name = "list", description = {
      "One line per discovered tool: name, implementation type, schema, description, and [cannot run here: why] for",
      "a tool this process would refuse (an implementation type no runtime serves, a broken definition). With --trusted-key, only",
      "the tools signed by one of those publishers (./rcrt sign); the others are named on stderr with the reason."})
  public static final class ListTools implements Callable<Integer> {
    private final Cli cli;

    @Mixin StoreOptions breadcrumbs;

    @Option(names = "--trusted-key", paramLabel = "PEM", converter = Converters.PublicKeyFile.class,
        description = "List only tools signed by this publisher's Ed25519 public key (PEM), as chat, tool call and runner"
            + " with --trusted-key would run them. Repeatable.")
    List<PublicKey> publishers = new ArrayList<>();

    public ListTools(Cli cli) {
      this.cli = cli;
    }

    @Override
    public Integer call() {
      // discovered under the signature policy itself: an unsigned record cannot shadow a signed tool of its name
      ToolTrustPolicy policy = publishers.isEmpty()
          ? ToolTrustPolicy.defaults() : ToolTrustPolicy.builder().requireSignatures(publishers.toArray(PublicKey[]::new)).build();
      try (Workspace workspace = Workspace.reading(breadcrumbs, cli); dev.rcrt.tools.ToolRunner runner = workspace.runner(null, policy)) {
        // the runner's discovery: of tools sharing a name, one this process can run wins over a newer one it cannot
        LoadReport<ToolDefinition> tools = runner.discovery().discover();
        tools.problems().forEach(p -> cli.note("tool skipped: " + p));
        for (ToolDefinition t : tools.items()) {
          List<String> refused = new ArrayList<>(runner.problems(t));
          refused.removeAll(t.exampleProblems()); // examples that break their schemas are warnings: the tool still runs
          cli.out().printf("%-20s %-10s %-19s %s%s%n", t.name(), t.implementation().type(), t.schemaName(), t.description(),
              refused.isEmpty() ? "" : "  [cannot run here: " + refused.get(0) + "]");
        }
      }
      return 0;
    }
  }

  @Command(
      name = "prompt",
      description = {
        "Exactly what an agent sends the model about its tools in the first round of a turn: its",
        "system messages and, with the native protocol, the OpenAI tools JSON. The text protocol",
        "sends no tools JSON and describes each tool's inputs in the text instead."
      })
  public static final class PromptTools implements Callable<Integer> {
    private final Cli cli;

    @Spec CommandSpec spec;

    @Mixin StoreOptions breadcrumbs;

    @Option(names = "--agent", paramLabel = "ID", defaultValue = "default-chat-assistant",
        description = "agent_id of the agent definition whose request to show (default: ${DEFAULT-VALUE}).")
    String agentId = "default-chat-assistant";

    @Option(names = "--protocol", paramLabel = "PROTOCOL",
        description = "native or text: the agent's tool_protocol to show instead of its own.")
    @Nullable String protocol;

    @Parameters(arity = "0..*", paramLabel = "MESSAGE", description = "The user's message (tool budgets choose tools by it).")
    List<String> message = new ArrayList<>();

    public PromptTools(Cli cli) {
      this.cli = cli;
    }

    @Override
    public Integer call() throws Exception {
      if (protocol != null && !List.of("native", "text").contains(protocol)) {
        throw new ParameterException(spec.commandLine(), "--protocol must be native or text, found '" + protocol + "'");
      }
      try (Workspace workspace = Workspace.reading(breadcrumbs, cli)) {
        return prompt(workspace);
      }
    }

    private int prompt(Workspace workspace) throws Exception {
      AgentDefinition agent = workspace.agent(agentId);
      if (protocol != null) {
        ObjectNode context = agent.context().deepCopy();
        context.put("tool_protocol", protocol);
        agent = new AgentDefinition(agent.agentId(), agent.model(), agent.systemPrompt(), agent.options(), agent.subscriptions(), context);
      }
      LlmClient never = request -> {
        throw new IllegalStateException("tools prompt never asks the model");
      };
      try (ToolRunner runner = workspace.runner(null, ToolTrustPolicy.defaults());
          AgentExecutor executor = AgentExecutor.builder(never, runner).agent(agent).build()) {
        ChatRequest request = executor.preview(String.join(" ", message));
        for (ChatMessage m : request.messages()) {
          if ("system".equals(m.role())) {
            cli.out().println("=== system message");
            cli.out().println(m.content());
          }
        }
        if (!request.tools().isEmpty()) {
          cli.out().println("=== tools (OpenAI function calling)");
          cli.out().println(RcrtJson.writePretty(request.tools()));
        }
      }
      return 0;
    }
  }
}
