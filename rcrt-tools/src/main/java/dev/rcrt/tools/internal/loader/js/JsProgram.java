package dev.rcrt.tools.internal.loader.js;

import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One version of a tool's code, ready to evaluate.
 *
 * @param tool the tool name
 * @param handler the exported function to call, {@code execute} by default
 * @param javascript the module source (TypeScript already transpiled)
 * @param checksum identifies the original source; a new checksum is a new program
 * @param statementLimit the second guard after the time limit
 * @param allowedHosts hosts {@code fetch} may reach ({@code "*"} for any), or null for no {@code fetch}
 * @param maxResponseBytes the most bytes a {@code fetch} response body may have
 * @param memoryBytes the most bytes one call may allocate ({@code limits.memory_mb})
 */
record JsProgram(
    String tool,
    String handler,
    String javascript,
    String checksum,
    long statementLimit,
    @Nullable Set<String> allowedHosts,
    long maxResponseBytes,
    long memoryBytes) {

  /** The allocation budget of a call whose tool sets no {@code limits.memory_mb}. */
  static final long DEFAULT_MEMORY_MB = 256;
}
