package dev.rcrt.tools.js.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolRuntime;
import dev.rcrt.tools.js.internal.worker.JsProgram;
import java.time.Duration;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Type {@code breadcrumb}: JavaScript or TypeScript that exports {@code execute(input, context)},
 * either inline in a {@code tool.code.v1} ({@code code{language, source}}) or in another breadcrumb
 * named by {@code {runtime, breadcrumb_id, handler}} (its {@code context.code}, a string or {@code
 * {language, source}}), which must be last written by someone the trust policy trusts. TypeScript
 * is transpiled once per source checksum, by a compiler started on the first TypeScript tool and
 * closed with the loader. Thread-safe.
 */
public final class JsLoader implements AutoCloseable {
  private static final long STATEMENTS_PER_MS = 200_000;

  private final WorkerPool workers = WorkerPool.configured();
  private @Nullable TypeScriptCompiler typescript;
  private boolean closed;

  /**
   * Loads one version of a tool: its code is read (from the tool record, or once from the code
   * breadcrumb it names, which must be trusted) and evaluated once by a worker, so a broken one
   * fails here. The code is pinned to this load: what a call approved is what it runs. The runner
   * unloads the tool when its code breadcrumb changes, so the next call loads the new code.
   */
  public ToolRuntime.Loaded load(ToolDefinition definition, ToolRuntime.Services services) {
    workers.prewarm();
    JsCode code = code(definition, services); // read once: this version of the tool runs this code, whatever changes later
    return new JsTool(code, services, workers);
  }

  private JsCode code(ToolDefinition def, ToolRuntime.Services services) {
    String tool = def.name();
    JsonNode spec = def.implementation().spec();
    JsonNode code;
    String language;
    if (spec.hasNonNull("breadcrumb_id")) {
      String id = spec.get("breadcrumb_id").asText();
      Breadcrumb holder =
          services.store().get(id)
              .orElseThrow(
                  () -> new ToolException(ToolErrorCode.TOOL_LOAD_FAILED, "tool '" + tool + "': its code breadcrumb '" + id + "' does not exist"));
      String untrusted = services.policy().whyUntrusted(holder);
      if (untrusted != null) {
        throw new ToolException(
            ToolErrorCode.TOOL_UNTRUSTED, "tool '" + tool + "': its code breadcrumb '" + id + "' was not loaded: " + untrusted);
      }
      code = holder.context().path("code");
      language = code.path("language").asText(spec.path("runtime").asText("javascript"));
    } else {
      code = spec;
      language = spec.path("language").asText(spec.path("runtime").asText("javascript"));
    }
    String source = code.isTextual() ? code.textValue() : code.path("source").asText(null);
    if (source == null || source.isBlank()) {
      throw new ToolException(ToolErrorCode.TOOL_DEFINITION_INVALID, "tool '" + tool + "': no code source (expected code.source or a code string)");
    }
    String checksum = sha256(language + "\n" + source);
    String js =
        switch (language.toLowerCase(Locale.ROOT)) {
          case "javascript", "js" -> source;
          case "typescript", "ts" -> javaScriptOf(tool, source, checksum, services);
          default -> throw new ToolException(
              ToolErrorCode.TOOL_DEFINITION_INVALID, "tool '" + tool + "': code language '" + language + "' is not javascript or typescript");
        };
    Duration timeout = def.timeout() != null ? def.timeout() : services.defaultTimeout();
    long statements = Math.max(50_000_000L, timeout.toMillis() * STATEMENTS_PER_MS);
    Set<String> hosts = allowedHosts(def);
    String handler = spec.path("handler").asText("execute");
    long memory = memoryBytes(def);
    // a worker keeps programs by this digest: it covers all the worker applies, not the source alone, or a tool of the same
    // source would run with another tool's handler, statement and memory limits and name
    String program = sha256(RcrtJson.write(RcrtJson.nodes().arrayNode().add(checksum).add(tool).add(handler).add(statements)
        .add(hosts != null).add(memory).add(timeout.toMillis())));
    return new JsCode(new JsProgram(tool, handler, js, program, statements, hosts != null, memory, timeout.toMillis()), hosts,
        def.maxResponseBytes());
  }

  /** {@code limits.memory_mb} in bytes, else {@link JsProgram#DEFAULT_MEMORY_MB}. */
  private static long memoryBytes(ToolDefinition def) {
    JsonNode mb = def.context().path("limits").path("memory_mb");
    long megabytes = mb.canConvertToLong() && mb.asLong() > 0 ? mb.asLong() : JsProgram.DEFAULT_MEMORY_MB;
    return megabytes * 1024 * 1024;
  }

  /** {@code permissions.net}: false or absent → no fetch; true → any host; a list → those hosts. */
  private static @Nullable Set<String> allowedHosts(ToolDefinition def) {
    JsonNode net = def.context().path("permissions").path("net");
    if (net.isBoolean()) {
      return net.asBoolean() ? Set.of("*") : null;
    }
    if (net.isArray()) {
      Set<String> hosts = new HashSet<>();
      net.forEach(h -> hosts.add(h.asText().toLowerCase(Locale.ROOT)));
      return Set.copyOf(hosts);
    }
    return null;
  }

  /**
   * The JavaScript of a TypeScript source: kept in the store by any process of it ({@link
   * SharedTranspiles}), else transpiled here (loading the compiler on the first) and kept.
   */
  private String javaScriptOf(String tool, String source, String checksum, ToolRuntime.Services services) {
    String compiler = TypeScriptCompiler.version();
    String kept = SharedTranspiles.find(services, checksum, compiler);
    if (kept != null) {
      return kept;
    }
    String js = typescript().toJavaScript(tool, source, checksum);
    if (services.policy().trusts(dev.rcrt.core.Principal.host(), SharedTranspiles.SCHEMA)) {
      SharedTranspiles.keep(services, tool, checksum, compiler, js);
    }
    return js;
  }

  private static String sha256(String text) {
    return dev.rcrt.core.spi.ContentDigest.sha256Hex(text);
  }

  private synchronized TypeScriptCompiler typescript() {
    if (closed) {
      throw new ToolException(ToolErrorCode.TOOL_LOAD_FAILED, "the JavaScript runtime is closed (its tool runner was closed)");
    }
    if (typescript == null) {
      typescript = new TypeScriptCompiler();
    }
    return typescript;
  }

  @Override
  public synchronized void close() {
    closed = true;
    workers.close();
    if (typescript != null) {
      typescript.close();
      typescript = null;
    }
  }
}
