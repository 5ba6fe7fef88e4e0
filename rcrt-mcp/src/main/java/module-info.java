/**
 * MCP both ways on the official MCP Java SDK: the store's tools served over stdio and streamable
 * HTTP, and MCP servers' tools imported and run as the {@code mcp} implementation type.
 */
module dev.rcrt.mcp {
  requires transitive dev.rcrt.tools;
  requires transitive io.modelcontextprotocol.sdk.mcp.core;
  requires io.modelcontextprotocol.sdk.mcp.json.jackson2;
  requires transitive org.apache.tomcat.embed.core; // jakarta.servlet in McpToolServer.Mounted
  requires dev.rcrt.http;
  requires oauth2.oidc.sdk; // the OAuth 2.1 client of McpOAuth
  requires com.nimbusds.jose.jwt;
  requires content.type;
  requires org.slf4j;
  requires reactor.core;
  requires org.reactivestreams;

  exports dev.rcrt.mcp;

  provides dev.rcrt.tools.ToolRuntime with dev.rcrt.mcp.McpToolRuntime;
}
