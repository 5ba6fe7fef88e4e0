package dev.rcrt.cli.internal;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

@Command(
    name = "search",
    description = {
      "Print the breadcrumbs that match an RCRT selector as JSON Lines, newest first:",
      "{any_tags, all_tags, schema_name, context_match: [{path, op, value}]}."
    })
public final class SearchCommand implements Callable<Integer> {
  private final Cli cli;

  @Spec CommandSpec spec;

  @Mixin StoreOptions breadcrumbs;

  @Option(names = "--selector", paramLabel = "JSON", required = true, converter = Converters.SelectorJson.class,
      description = "The selector, e.g. '{\"schema_name\":\"tool.definition.v1\"}'.")
  Selector selector = Selector.all();

  @Option(names = "--limit", paramLabel = "N", defaultValue = "100", description = "At most N results (default: ${DEFAULT-VALUE}).")
  int limit = 100;

  public SearchCommand(Cli cli) {
    this.cli = cli;
  }

  @Override
  public Integer call() {
    if (limit < 1) {
      throw new ParameterException(spec.commandLine(), "--limit must be at least 1, found " + limit);
    }
    try (Workspace workspace = new Workspace(breadcrumbs, cli)) {
      for (Breadcrumb b : workspace.store().search(selector, limit, 0)) {
        cli.out().println(RcrtJson.write(b));
      }
    }
    return 0;
  }
}
