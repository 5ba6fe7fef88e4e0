package dev.rcrt.cli.internal;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "search",
    description = {
      "Print the breadcrumbs that match an RCRT selector as JSON Lines, newest first:",
      "{any_tags, all_tags, schema_name, context_match: [{path, op, value}]}."
    })
public final class SearchCommand implements Callable<Integer> {
  private final Cli cli;

  @Mixin BreadcrumbsOption breadcrumbs;

  @Option(names = "--selector", paramLabel = "JSON", required = true, description = "The selector, e.g. '{\"schema_name\":\"tool.definition.v1\"}'.")
  String selector = "{}";

  @Option(names = "--limit", paramLabel = "N", defaultValue = "100", description = "At most N results (default: ${DEFAULT-VALUE}).")
  int limit = 100;

  public SearchCommand(Cli cli) {
    this.cli = cli;
  }

  @Override
  public Integer call() {
    Selector parsed = Selector.fromJson(RcrtJson.parse(selector));
    Workspace workspace = new Workspace(breadcrumbs.paths(), cli);
    for (Breadcrumb b : workspace.store().search(parsed, Math.max(1, limit), 0)) {
      cli.out().println(RcrtJson.write(b));
    }
    return 0;
  }
}
