package dev.rcrt.cli.internal;

import picocli.CommandLine.Command;

@Command(name = "mcp", description = "The Model Context Protocol: serve the store's tools to MCP clients, and use MCP servers' tools.")
public final class McpCommand extends GroupCommand {}
