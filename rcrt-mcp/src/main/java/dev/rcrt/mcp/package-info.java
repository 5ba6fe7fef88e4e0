/**
 * The Model Context Protocol, on the official MCP Java SDK: {@link dev.rcrt.mcp.McpToolServer}
 * serves the tools a store holds to any MCP client, over stdio or streamable HTTP.
 */
@NullMarked
package dev.rcrt.mcp;

import org.jspecify.annotations.NullMarked;
