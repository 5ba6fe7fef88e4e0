package dev.rcrt.cli.internal;

import dev.rcrt.agent.ToolPrompt;
import dev.rcrt.agent.ToolPromptAdapter;
import dev.rcrt.core.LoadReport;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolDiscovery;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(
    name = "tools",
    description = "Inspect the tools agents discover from breadcrumbs.")
public final class ToolsCommand extends GroupCommand {

  static LoadReport<ToolDefinition> discover(Cli cli, BreadcrumbsOption breadcrumbs) {
    Workspace workspace = new Workspace(breadcrumbs.paths(), cli);
    LoadReport<ToolDefinition> tools = new ToolDiscovery(workspace.store()).discover();
    tools.problems().forEach(p -> cli.note("tool skipped: " + p));
    return tools;
  }

  @Command(name = "list", description = "One line per discovered tool: name, implementation type, schema, description.")
  public static final class ListTools implements Callable<Integer> {
    private final Cli cli;

    @Mixin BreadcrumbsOption breadcrumbs;

    public ListTools(Cli cli) {
      this.cli = cli;
    }

    @Override
    public Integer call() {
      for (ToolDefinition t : discover(cli, breadcrumbs).items()) {
        cli.out().printf("%-20s %-10s %-19s %s%n", t.name(), t.implementation().type(), t.schemaName(), t.description());
      }
      return 0;
    }
  }

  @Command(name = "prompt", description = "The text prompt and the OpenAI tools JSON that agents send for the discovered tools.")
  public static final class PromptTools implements Callable<Integer> {
    private final Cli cli;

    @Mixin BreadcrumbsOption breadcrumbs;

    public PromptTools(Cli cli) {
      this.cli = cli;
    }

    @Override
    public Integer call() throws Exception {
      ToolPrompt prompt = new ToolPromptAdapter().adapt(discover(cli, breadcrumbs).items());
      cli.out().println(prompt.text());
      cli.out().println(RcrtJson.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(prompt.tools()));
      return 0;
    }
  }
}
