package dev.rcrt.mcp;

import io.modelcontextprotocol.spec.McpError;
import java.util.function.Supplier;

/** What an MCP server refuses, read through the official SDK's client. */
final class Refusals {
  private Refusals() {}

  /**
   * The message of the JSON-RPC error {@code request} gets; fails if it succeeds. The SDK's client
   * at times fails a request right after an error answer with "header parser received no bytes" (a
   * connection it should not have kept): such a request is sent again, at most twice, since that
   * says nothing of what the server answers.
   */
  static String of(Supplier<?> request) {
    for (int attempt = 1; ; attempt++) {
      try {
        Object answer = request.get();
        throw new AssertionError("not refused: " + answer);
      } catch (McpError e) {
        return e.getMessage();
      } catch (RuntimeException transport) {
        if (attempt == 3 || !String.valueOf(transport.getMessage()).contains("header parser received no bytes")) {
          throw transport;
        }
      }
    }
  }
}
