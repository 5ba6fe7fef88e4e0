package dev.rcrt.http.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.RcrtJson;

/**
 * The JSON body of an error answer, in the format of an endpoint's clients: {@link #JSON_RPC} for
 * MCP and A2A, {@link #PLAIN} for AG-UI and the console. The message is the server's own text, never
 * an exception's.
 */
@FunctionalInterface
public interface ErrorBody {
  /**
   * {@code {"jsonrpc": "2.0", "id": null, "error": {"code": C, "message": M}}} (JSON-RPC 2.0 section
   * 5.1): {@code -32603} (internal error) for a 5xx status, else {@code -32600} (invalid request).
   */
  ErrorBody JSON_RPC = (status, message) -> {
    ObjectNode answer = RcrtJson.object().put("jsonrpc", "2.0").putNull("id");
    answer.putObject("error").put("code", status >= 500 ? -32603 : -32600).put("message", message);
    return RcrtJson.write(answer);
  };

  /** {@code {"error": M}}. */
  ErrorBody PLAIN = (status, message) -> RcrtJson.write(RcrtJson.object().put("error", message));

  /**
   * @param status the HTTP status of the answer, 400 to 599
   * @param message what went wrong, for a person
   * @return the JSON text of the body
   */
  String json(int status, String message);
}
