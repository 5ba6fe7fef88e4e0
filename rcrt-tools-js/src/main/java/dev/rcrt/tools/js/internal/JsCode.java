package dev.rcrt.tools.js.internal;

import dev.rcrt.tools.js.internal.worker.JsProgram;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One version of a tool's code as the host holds it: the program a worker runs, and what only the
 * host enforces for it.
 *
 * @param program what the worker evaluates
 * @param allowedHosts hosts {@code fetch} may reach ({@code "*"} for any), or null for no {@code fetch}
 * @param maxResponseBytes the most bytes a {@code fetch} response body may have
 */
record JsCode(JsProgram program, @Nullable Set<String> allowedHosts, long maxResponseBytes) {}
