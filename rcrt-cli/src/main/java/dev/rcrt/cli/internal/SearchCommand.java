package dev.rcrt.cli.internal;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.VectorSearch;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

@Command(
    name = "search",
    description = {
      "Print breadcrumbs as JSON Lines: those an RCRT selector matches, newest first",
      "({any_tags, all_tags, schema_name, context_match: [{path, op, value}]}), or with --query",
      "the nearest in meaning, nearest first (the selector then narrows them)."
    })
public final class SearchCommand implements Callable<Integer> {
  /** How long a search by meaning waits for the records just loaded to be embedded. */
  private static final Duration INDEX_WAIT = Duration.ofMinutes(2);

  private final Cli cli;

  @Spec CommandSpec spec;

  @Mixin StoreOptions breadcrumbs;

  @Option(names = "--selector", paramLabel = "JSON", converter = Converters.SelectorJson.class,
      description = "The selector, e.g. '{\"schema_name\":\"tool.v1\"}'; required without --query.")
  @Nullable Selector selector;

  @Option(names = "--query", paramLabel = "TEXT",
      description = "Search by meaning: the breadcrumbs nearest to TEXT (RCRT's vector search; the store's embeddings, MiniLM in process for memory and PostgreSQL).")
  @Nullable String query;

  @Option(names = "--nn", paramLabel = "N", defaultValue = "5", description = "With --query: at most N neighbours (default: ${DEFAULT-VALUE}).")
  int nn = 5;

  @Option(names = "--limit", paramLabel = "N", defaultValue = "100", description = "Without --query: at most N results (default: ${DEFAULT-VALUE}).")
  int limit = 100;

  public SearchCommand(Cli cli) {
    this.cli = cli;
  }

  @Override
  public Integer call() throws InterruptedException {
    if (query == null && selector == null) {
      throw new ParameterException(spec.commandLine(), "give --selector JSON, --query TEXT, or both");
    }
    if (query != null && query.isBlank()) {
      throw new ParameterException(spec.commandLine(), "--query must not be blank");
    }
    boolean nnGiven = spec.commandLine().getParseResult().hasMatchedOption("--nn");
    boolean limitGiven = spec.commandLine().getParseResult().hasMatchedOption("--limit");
    if (query == null && nnGiven || query != null && limitGiven) {
      throw new ParameterException(spec.commandLine(), query == null
          ? "--nn counts the neighbours of --query TEXT; without --query, --limit N caps the results"
          : "--limit caps a selector search; with --query, --nn N says how many neighbours");
    }
    if (limit < 1 || nn < 1) {
      throw new ParameterException(spec.commandLine(), (limit < 1 ? "--limit" : "--nn") + " must be at least 1, found " + Math.min(limit, nn));
    }
    Selector filter = selector == null ? Selector.all() : selector;
    try (Workspace workspace = Workspace.reading(breadcrumbs, cli)) {
      List<Breadcrumb> found;
      if (query == null) {
        found = workspace.store().search(filter, limit, 0);
      } else {
        VectorSearch vectors = workspace.store().vectorSearch().orElse(null);
        if (vectors == null) {
          cli.err().println("rcrt: this store (" + breadcrumbs.store(cli) + ") has no search by meaning; search with --selector instead");
          return 1;
        }
        if (!vectors.awaitIndexed(INDEX_WAIT)) {
          cli.err().println("rcrt: " + vectors.pending() + " breadcrumbs are not embedded yet (the embedding model is failing or slow: see the log); they are left out");
        }
        found = vectors.nearest(query, nn, filter);
      }
      for (Breadcrumb b : found) {
        cli.out().println(RcrtJson.write(b));
      }
    }
    return 0;
  }
}
