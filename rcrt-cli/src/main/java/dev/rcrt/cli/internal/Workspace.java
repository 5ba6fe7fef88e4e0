package dev.rcrt.cli.internal;

import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.mcp.McpOAuth;
import dev.rcrt.mcp.McpToolRuntime;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbFiles;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.LoadReport;
import dev.rcrt.core.NotFoundException;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.tools.ApprovalHandler;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.SecretResolver;
import dev.rcrt.tools.ToolRunner;
import dev.rcrt.tools.ToolTrustPolicy;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The store a command works on: the bundled tools and agent, then the user's {@code --breadcrumbs}
 * files on top (a file record with the same id replaces a bundled one). A file that does not load
 * is reported on stderr and the rest still load. A command that only reads ({@link #reading})
 * writes no bundled record into a shared store: it shows the store as its processes see it.
 */
public final class Workspace implements AutoCloseable {
  private final BreadcrumbStore store;
  private final AutoCloseable resources;
  private final Cli cli;
  private final @Nullable TranspileCache transpiled;

  /**
   * Opens the store of {@code options} and loads the bundled tools and agent, then the files
   * (records that are already there unchanged are not written again).
   *
   * @throws IllegalArgumentException if {@code RCRT_STORE} is not a store URL
   */
  public Workspace(StoreOptions options, Cli cli) {
    this(options, cli, true);
  }

  /**
   * The store of a command that only reads ({@code runs list}, {@code search}, {@code view}, {@code
   * tools list}): like {@link #Workspace(StoreOptions, Cli)}, but a shared store gets none of the
   * bundled tools and agent (the in-memory store still does: it has nothing else); {@code
   * --breadcrumbs} files are still loaded, as asked.
   */
  public static Workspace reading(StoreOptions options, Cli cli) {
    return new Workspace(options, cli, false);
  }

  private Workspace(StoreOptions options, Cli cli, boolean bundled) {
    this.cli = cli;
    StoreUrl.Opened opened = options.store(cli).open(cli.env());
    this.store = opened.store();
    this.resources = opened.resources();
    this.transpiled = store instanceof dev.rcrt.core.InMemoryBreadcrumbStore ? TranspileCache.of(cli) : null;
    try {
      if (transpiled != null) {
        transpiled.loadInto(store);
      }
      List<Path> breadcrumbs = options.paths();
      if (bundled || store instanceof dev.rcrt.core.InMemoryBreadcrumbStore) {
        BuiltinTools.seed(store);
        BreadcrumbFiles.upsert(store, AgentDefinition.defaultChatAgent());
      }
      LoadReport<Breadcrumb> report = BreadcrumbFiles.loadInto(store, breadcrumbs);
      report.problems().forEach(p -> cli.note("skipped " + p));
      for (int i = 0; i < report.items().size(); i++) { // loaded, but with fields nothing reads (./rcrt validate lists them too)
        String source = report.sources().get(i);
        ContextFields.unknown(report.items().get(i)).forEach(f -> cli.note("warning: " + source + ": " + f));
      }
    } catch (RuntimeException | Error e) { // what was opened is closed (its embedding model may be loading), then the failure goes on
      try {
        resources.close();
      } catch (Exception closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
  }

  public BreadcrumbStore store() {
    return store;
  }

  /**
   * Closes the store's connections (a PostgreSQL store's listener and pool); for the in-memory
   * store, saves the TypeScript it transpiled ({@link TranspileCache}).
   */
  @Override
  public void close() {
    if (transpiled != null) {
      transpiled.save(store);
    }
    try {
      resources.close();
    } catch (Exception e) {
      cli.note("closing the store: " + e.getMessage());
    }
  }

  /**
   * A runner over the store whose {@code secret:NAME} references read the command's environment,
   * under {@code policy}, asking {@code approval} for tools that need it.
   */
  public ToolRunner runner(@Nullable ApprovalHandler approval, ToolTrustPolicy policy) {
    return runner(approval, policy, b -> {});
  }

  /** {@link #runner(ApprovalHandler, ToolTrustPolicy)} with the command's own settings applied first. */
  public ToolRunner runner(@Nullable ApprovalHandler approval, ToolTrustPolicy policy, Consumer<ToolRunner.Builder> settings) {
    ToolRunner.Builder b =
        ToolRunner.builder(store)
            .secretResolver(SecretResolver.environment(cli.env()))
            .approvalHandler(approval)
            .trustPolicy(policy)
            .runtime(new McpToolRuntime(java.util.Set.of(), mcpSignIn()));
    settings.accept(b);
    cli.runnerSetup().accept(b);
    return b.build();
  }

  /**
   * How this command's MCP tools sign in to a server that requires OAuth: with the tokens an {@code
   * mcp} command kept ({@link OAuthTokenFiles}), refreshed as needed; a new authorization asks the
   * person at the terminal (the address is printed), and fails in a command without one.
   */
  private McpOAuth mcpSignIn() {
    McpOAuth.UserAgent agent = cli.interactive() ? OAuthUserAgents.browser(cli)
        : OAuthUserAgents.none("nobody is at a terminal to authorize; authorize once with ./rcrt mcp tools URL, whose tokens later commands use");
    return McpOAuth.builder().userAgent(agent).tokens(OAuthTokenFiles.of(cli)).build();
  }

  /**
   * {@link AgentDefinition#load}: the newest agent definition with {@code agent_id} written by the host.
   *
   * @throws NotFoundException naming the agents there are
   */
  public AgentDefinition agent(String agentId) {
    return AgentDefinition.load(store, agentId);
  }

  /** Writes every breadcrumb as JSON Lines (RCRT wire fields), oldest write first. */
  public void dump(Path file) throws IOException {
    List<Breadcrumb> all = new ArrayList<>();
    for (int offset = 0; ; offset += 1000) {
      List<Breadcrumb> page = store.search(Selector.all(), 1000, offset);
      all.addAll(page);
      if (page.size() < 1000) {
        break;
      }
    }
    Collections.reverse(all);
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      for (Breadcrumb b : all) {
        w.write(RcrtJson.write(b));
        w.write('\n');
      }
    }
  }
}
