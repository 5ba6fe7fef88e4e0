package dev.rcrt.cli.internal;

import dev.rcrt.core.RcrtJson;
import dev.rcrt.mcp.McpClientSession;
import dev.rcrt.mcp.McpServerAddress;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "tools",
    description = {
      "List an MCP server's tools, one JSON line each ({name, description, inputSchema, …}). SERVER is an",
      "http(s):// URL or a command to start over stdio."
    })
public final class McpToolsCommand implements Callable<Integer> {
  private final Cli cli;

  @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "60", description = "Limit of each request (default: ${DEFAULT-VALUE}).")
  int timeoutSeconds = 60;

  @Mixin OAuthOptions oauth = new OAuthOptions();

  @Parameters(index = "0", paramLabel = "SERVER", description = "An http(s):// URL, or the command that starts the server.")
  String server = "";

  public McpToolsCommand(Cli cli) {
    this.cli = cli;
  }

  @Override
  public Integer call() {
    try (McpClientSession session = McpClientSession.connect(
        McpServerAddress.parse(server), Duration.ofSeconds(timeoutSeconds), java.util.Set.of(), t -> {}, null, oauth.oauth(cli))) {
      for (McpSchema.Tool tool : session.listTools()) {
        cli.out().println(RcrtJson.write(RcrtJson.toTree(tool)));
      }
      return 0;
    }
  }
}
