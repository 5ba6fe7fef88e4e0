package dev.rcrt.mcp;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.time.Duration;
import java.util.function.UnaryOperator;

/** The official MCP Java SDK's client on a server's streamable-HTTP endpoint, as the tests connect it. */
final class TestClients {
  private TestClients() {}

  /**
   * An initialized client named {@code name} on {@code server}, with a 20 s request timeout and what
   * {@code consumers} adds (change and notification consumers); the caller closes it.
   */
  static McpSyncClient connect(McpToolServer server, String name, UnaryOperator<McpClient.SyncSpec> consumers) {
    URI uri = server.uri();
    McpClient.SyncSpec spec = McpClient.sync(HttpClientStreamableHttpTransport.builder("http://" + uri.getAuthority()).endpoint(uri.getPath()).build())
        .clientInfo(new McpSchema.Implementation(name, "1.0"))
        .requestTimeout(Duration.ofSeconds(20));
    McpSyncClient client = consumers.apply(spec).build();
    client.initialize();
    return client;
  }
}
