package dev.rcrt.tools.js.internal.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.RcrtJson;

/**
 * One version of a tool's code, ready to evaluate, as the host sends it to a worker.
 *
 * @param tool the tool name
 * @param handler the exported function to call, {@code execute} by default
 * @param javascript the module source (TypeScript already transpiled)
 * @param checksum identifies the program: a digest of its original source and of every other
 *     component, so two tools of the same source but another name, handler or limit are two
 *     programs (a worker keeps programs by it)
 * @param statementLimit the second guard after the time limit
 * @param fetch whether the tool may call {@code fetch} at all (the host checks each URL)
 * @param memoryBytes the most bytes one call may allocate ({@code limits.memory_mb})
 * @param timeoutMillis the tool's time limit
 */
public record JsProgram(
    String tool,
    String handler,
    String javascript,
    String checksum,
    long statementLimit,
    boolean fetch,
    long memoryBytes,
    long timeoutMillis) {

  /** The allocation budget of a call whose tool sets no {@code limits.memory_mb}. */
  public static final long DEFAULT_MEMORY_MB = 256;

  /**
   * The longest evaluating the module may take: the tool's time limit, but at least {@link
   * #MIN_EVALUATION_MILLIS}, since a worker's first context pays for warming its engine, and on a
   * loaded machine (two CPU-bound processes beside it on two cores) that alone took over 5 s.
   */
  public long evaluationMillis() {
    return Math.max(timeoutMillis, MIN_EVALUATION_MILLIS);
  }

  /** The floor of {@link #evaluationMillis()}. */
  public static final long MIN_EVALUATION_MILLIS = 15_000;

  /** The program as a JSON object, the form it travels in to the worker. */
  public ObjectNode toJson() {
    return RcrtJson.toTree(this);
  }

  static JsProgram fromJson(JsonNode json) {
    return RcrtJson.convert(json, JsProgram.class);
  }
}
