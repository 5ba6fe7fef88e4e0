package dev.rcrt.cli.internal;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbView;
import dev.rcrt.core.ContextView;
import dev.rcrt.core.NotFoundException;
import dev.rcrt.core.RcrtJson;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

@Command(
    name = "view",
    description = {
      "Print the view an agent sees of one breadcrumb: its context with llm_hints applied (the",
      "record's own, else those of the schema.def.v1 tagged defines:<schema_name>), as JSON."
    })
public final class ViewCommand implements Callable<Integer> {
  private final Cli cli;

  @Mixin StoreOptions breadcrumbs;

  @Parameters(index = "0", paramLabel = "ID", description = "The breadcrumb id.")
  String id = "";

  public ViewCommand(Cli cli) {
    this.cli = cli;
  }

  @Override
  public Integer call() throws Exception {
    try (Workspace workspace = Workspace.reading(breadcrumbs, cli)) {
      Breadcrumb b = workspace.store().get(id).orElseThrow(() -> new NotFoundException("no breadcrumb with id '" + id + "'"));
      BreadcrumbView view =
          ContextView.of(workspace.store())
              .view(b)
              .orElseThrow(() -> new NotFoundException("breadcrumb '" + id + "' has sensitivity secret, so it has no LLM view"));
      cli.out().println(RcrtJson.writePretty(view));
    }
    return 0;
  }
}
