package dev.rcrt.cli.internal;

import dev.rcrt.mcp.McpToolServer;
import dev.rcrt.tools.ToolRunner;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

@Command(
    name = "serve",
    description = {
      "Serve the store's tools to MCP clients (Claude Desktop, IDEs, agent frameworks): tools/list is the",
      "live list of trusted tools, and changes to tool records reach connected clients at once",
      "(notifications/tools/list_changed); tools/call runs each call through the tool chain and leaves the",
      "usual tool.request.v1 / tool.response.v1 trail, with the client as the requester.",
      "Without --http it speaks MCP on stdin and stdout, as an MCP client that starts it expects, and ends",
      "when stdin closes; notes go to stderr. With --http it listens for streamable HTTP on",
      "http://HOST:PORT/mcp (HOST 127.0.0.1 unless given) until stopped; on any other address it requires",
      "the bearer token in RCRT_MCP_TOKEN. Tools that need approval run only with --approve."
    })
public final class McpServeCommand implements Callable<Integer> {
  private final Cli cli;

  @Spec CommandSpec spec;

  @Mixin StoreOptions store;

  @Mixin ApprovalOption approval;

  @Mixin TrustOption trust;

  @Option(names = "--http", paramLabel = "[HOST:]PORT", converter = Converters.HostPort.class,
      description = "Listen for streamable HTTP instead of stdio, e.g. 8808 or 0.0.0.0:8808 (port 0: any free port).")
  Converters.@Nullable HostPortValue http;

  @Option(names = "--sse-polling", paramLabel = "DURATION", converter = Converters.Durations.class,
      description = {"With --http: close a stream's connection once it has been open this long (e.g. 30s; each later",
          "connection of the stream twice as long); the client comes back after 1 s with Last-Event-ID for what it",
          "missed (SSE polling, MCP 2025-11-25). Default: held until the stream ends."})
  java.time.@Nullable Duration ssePolling;

  public McpServeCommand(Cli cli) {
    this.cli = cli;
  }

  @Override
  public Integer call() throws Exception {
    if (ssePolling != null && (http == null || ssePolling.isNegative() || ssePolling.isZero())) {
      throw new ParameterException(spec.commandLine(), http == null ? "--sse-polling needs --http (stdio has no streams to close)"
          : "--sse-polling must be positive, found " + ssePolling);
    }
    // SIGTERM or Ctrl-C: stop serving, close the store (its embedding model with it), then end with status 0
    try (StopSignal signal = new StopSignal();
        Workspace workspace = new Workspace(store, cli);
        ToolRunner runner = workspace.runner(approval.withoutTerminal(cli), trust.policy())) {
      McpToolServer.Builder builder = McpToolServer.builder(runner).serverInfo("rcrt", "0.1.0");
      if (http == null) {
        try (McpToolServer server = builder.stdio(new FileInputStream(FileDescriptor.in), new FileOutputStream(FileDescriptor.out))) {
          signal.onStop(server::close); // a signal ends the wait for the client's end of stdin
          server.awaitClose();
        }
        return 0;
      }
      if (ssePolling != null) {
        builder.ssePolling(ssePolling, java.time.Duration.ofSeconds(1));
      }
      String token = cli.env().get("RCRT_MCP_TOKEN");
      try (McpToolServer server = builder.http(http.host(), http.port(), token == null || token.isBlank() ? null : token)) {
        cli.note("MCP server listening on " + server.uri() + (token == null ? "" : " (bearer token required)") + "; Ctrl-C to stop");
        signal.await();
      }
      return 0;
    }
  }
}
