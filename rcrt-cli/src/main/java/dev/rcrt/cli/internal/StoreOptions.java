package dev.rcrt.cli.internal;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/** The options every command shares: which store to work on, and the breadcrumb files to load into it. */
public final class StoreOptions {
  @Option(
      names = "--breadcrumbs",
      paramLabel = "PATH",
      converter = Converters.ExistingPath.class,
      description = "Breadcrumb JSON file or directory (read recursively) to load on top of the bundled tools and agent. Repeatable.")
  List<Path> paths = new ArrayList<>();

  @Option(
      names = "--store",
      paramLabel = "URL",
      converter = Converters.StoreUrlValue.class,
      description = "The store: memory (the default, gone at exit), postgresql://USER[:PASSWORD]@HOST[:PORT]/DB[?schema=NAME]"
          + " (shared and persistent), or a running RCRT server, rcrt+http://HOST:PORT (token from $RCRT_TOKEN, or fetched for"
          + " $RCRT_OWNER_ID and $RCRT_AGENT_ID). Default: $RCRT_STORE, else memory.")
  @Nullable StoreUrl store;

  public List<Path> paths() {
    return paths;
  }

  /**
   * The store URL: {@code --store}, else {@code RCRT_STORE} from the environment, else memory.
   *
   * @throws IllegalArgumentException if {@code RCRT_STORE} is not a store URL
   */
  public StoreUrl store(Cli cli) {
    if (store != null) {
      return store;
    }
    String fromEnv = cli.env().get("RCRT_STORE");
    return fromEnv == null || fromEnv.isBlank() ? StoreUrl.MEMORY : StoreUrl.parse(fromEnv);
  }
}
