package dev.rcrt.cli.internal;

import io.modelcontextprotocol.spec.McpSchema;
import java.util.stream.Collectors;

/** An MCP tool result as text for the terminal. */
final class McpResults {
  private McpResults() {}

  /** The text blocks joined by newlines; other blocks named by their type. */
  static String text(McpSchema.CallToolResult result) {
    return result.content().stream()
        .map(c -> c instanceof McpSchema.TextContent t ? t.text() : "[" + c.type() + " content]")
        .collect(Collectors.joining("\n"));
  }
}
