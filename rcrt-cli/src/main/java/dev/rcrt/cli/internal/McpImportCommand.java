package dev.rcrt.cli.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.mcp.McpClientSession;
import dev.rcrt.mcp.McpImport;
import dev.rcrt.mcp.McpServerAddress;
import dev.rcrt.tools.SecretResolver;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "import",
    description = {
      "Print an MCP server's tools as tool records (a JSON array, ready for --breadcrumbs): one tool.v1 per",
      "tool, named ALIAS.TOOL, of implementation type mcp, with the server's schemas (with --resources and",
      "--prompts, also its resources and prompts as mcp.resource.v1 and mcp.prompt.v1). The server is kept",
      "as given, secret:NAME header and env values included (resolved from the environment now, to list",
      "the tools, and again at each call). Records are trusted as their writer is: loaded from a file by",
      "the host they are trusted; starting a command needs --allow-command when they run."
    })
public final class McpImportCommand implements Callable<Integer> {
  private final Cli cli;

  static final class Server {
    @Option(names = "--url", paramLabel = "URL", description = "A streamable-HTTP server, e.g. https://example.com/mcp.")
    @Nullable String url;

    @Option(names = "--command", paramLabel = "CMD", description = "A server to start over stdio, e.g. \"npx -y @modelcontextprotocol/server-everything\".")
    @Nullable String command;
  }

  @ArgGroup(exclusive = true, multiplicity = "1")
  Server server;

  @Option(names = "--alias", paramLabel = "NAME", description = "Prefix of the tool names (default: from the server's name).")
  @Nullable String alias;

  @Option(names = "--header", paramLabel = "NAME=VALUE", description = "An HTTP header for a URL server; VALUE may be secret:NAME. Repeatable.")
  Map<String, String> headers = new LinkedHashMap<>();

  @Option(names = "--env", paramLabel = "NAME=VALUE", description = "An environment variable for a command server; VALUE may be secret:NAME. Repeatable.")
  Map<String, String> env = new LinkedHashMap<>();

  @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "60", description = "Limit of starting and listing (default: ${DEFAULT-VALUE}).")
  int timeoutSeconds = 60;

  @Option(names = "--resources", description = "Also import the server's resources, read now, as mcp.resource.v1 records (served by mcp serve).")
  boolean resources;

  @Option(names = "--prompts", description = "Also import the server's prompts as mcp.prompt.v1 records named ALIAS.PROMPT (served by mcp serve).")
  boolean prompts;

  @Mixin OAuthOptions oauth = new OAuthOptions();

  public McpImportCommand(Cli cli) {
    this.cli = cli;
  }

  @Override
  public Integer call() {
    ObjectNode json = RcrtJson.object();
    if (server.url != null) {
      json.put("url", server.url);
      json.set("headers", RcrtJson.toTree(headers));
    } else {
      json.set("command", RcrtJson.toTree(List.of(java.util.Objects.requireNonNull(server.command, "--command").trim().split("\\s+"))));
      json.set("env", RcrtJson.toTree(env));
    }
    SecretResolver secrets = SecretResolver.environment(cli.env());
    McpServerAddress address = McpServerAddress.fromJson(json).resolved(v -> !v.startsWith("secret:") ? v
        : secrets.resolve(v.substring("secret:".length())).orElseThrow(() -> new IllegalArgumentException(
            "secret '" + v.substring("secret:".length()) + "' is not set in the environment")));
    try (McpClientSession session =
        McpClientSession.connect(address, Duration.ofSeconds(timeoutSeconds), java.util.Set.of(), t -> {}, null, oauth.oauth(cli))) {
      if (server.url != null && session.authorized()) { // calls sign in as this import did, with the tokens it kept
        json.set("oauth", oauth.recordForm());
      }
      String name = alias != null ? alias : McpImport.aliasOf(session.serverInfo());
      List<BreadcrumbCreate> records = new java.util.ArrayList<>(McpImport.records(session.listTools(), name, json));
      int tools = records.size();
      List<BreadcrumbCreate> read = resources ? McpImport.resources(session, name) : List.of();
      List<BreadcrumbCreate> got = prompts ? McpImport.prompts(session, name) : List.of();
      records.addAll(read);
      records.addAll(got);
      ArrayNode out = RcrtJson.toTree(records);
      cli.out().println(out.toPrettyString());
      cli.note(tools + " tool(s) of " + address + " imported as " + name + ".*"
          + (resources ? ", " + read.size() + " resource(s)" : "") + (prompts ? ", " + got.size() + " prompt(s)" : ""));
      return 0;
    }
  }
}
