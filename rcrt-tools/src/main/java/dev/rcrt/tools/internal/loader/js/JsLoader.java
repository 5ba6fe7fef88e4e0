package dev.rcrt.tools.internal.loader.js;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolTrustPolicy;
import dev.rcrt.tools.internal.loader.ImplementationLoader;
import dev.rcrt.tools.internal.loader.Invoker;
import dev.rcrt.tools.internal.loader.LazyResource;
import dev.rcrt.tools.internal.loader.http.HttpLoader;
import dev.rcrt.tools.internal.loader.js.worker.JsProgram;
import dev.rcrt.tools.internal.trust.NetworkGuard;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Type {@code breadcrumb}: JavaScript or TypeScript that exports {@code execute(input, context)},
 * either inline in a {@code tool.code.v1} ({@code code{language, source}}) or in another breadcrumb
 * named by {@code {runtime, breadcrumb_id, handler}} (its {@code context.code}, a string or {@code
 * {language, source}}), which must be last written by someone the trust policy trusts. TypeScript
 * is transpiled once per source checksum.
 */
public final class JsLoader implements ImplementationLoader, AutoCloseable {
  private static final long STATEMENTS_PER_MS = 200_000;

  private final BreadcrumbStore store;
  private final Duration defaultTimeout;
  private final ToolTrustPolicy policy;
  private final NetworkGuard network;
  private final LazyResource<TypeScriptCompiler> typescript =
      new LazyResource<>(TypeScriptCompiler::new, "TypeScript tools need GraalJS (org.graalvm.polyglot:js-community) on the classpath");
  private final WorkerPool workers = WorkerPool.shared();

  public JsLoader(BreadcrumbStore store, Duration defaultTimeout, ToolTrustPolicy policy, NetworkGuard network) {
    this.store = store;
    this.defaultTimeout = defaultTimeout;
    this.policy = policy;
    this.network = network;
  }

  @Override
  public Invoker load(ToolDefinition definition) {
    workers.prewarm();
    JsCode first = code(definition);
    boolean elsewhere = definition.implementation().spec().hasNonNull("breadcrumb_id");
    return new JsTool(first, elsewhere ? () -> code(definition) : () -> first, network, workers);
  }

  private JsCode code(ToolDefinition def) {
    String tool = def.name();
    JsonNode spec = def.implementation().spec();
    JsonNode code;
    String language;
    if (spec.hasNonNull("breadcrumb_id")) {
      String id = spec.get("breadcrumb_id").asText();
      Breadcrumb holder =
          store.get(id)
              .orElseThrow(
                  () -> new ToolException("tool_load_failed", "tool '" + tool + "': its code breadcrumb '" + id + "' does not exist"));
      String untrusted = policy.whyUntrusted(holder);
      if (untrusted != null) {
        throw new ToolException(
            "tool_untrusted", "tool '" + tool + "': its code breadcrumb '" + id + "' was not loaded: " + untrusted);
      }
      code = holder.context().path("code");
      language = code.path("language").asText(spec.path("runtime").asText("javascript"));
    } else {
      code = spec;
      language = spec.path("language").asText(spec.path("runtime").asText("javascript"));
    }
    String source = code.isTextual() ? code.textValue() : code.path("source").asText(null);
    if (source == null || source.isBlank()) {
      throw new ToolException("tool_definition_invalid", "tool '" + tool + "': no code source (expected code.source or a code string)");
    }
    String checksum = sha256(language + "\n" + source);
    String js =
        switch (language.toLowerCase(Locale.ROOT)) {
          case "javascript", "js" -> source;
          case "typescript", "ts" -> typescript.get().toJavaScript(tool, source, checksum);
          default -> throw new ToolException(
              "tool_definition_invalid", "tool '" + tool + "': code language '" + language + "' is not javascript or typescript");
        };
    Duration timeout = def.timeout() != null ? def.timeout() : defaultTimeout;
    long statements = Math.max(50_000_000L, timeout.toMillis() * STATEMENTS_PER_MS);
    Set<String> hosts = allowedHosts(def);
    JsProgram program =
        new JsProgram(tool, spec.path("handler").asText("execute"), js, checksum, statements, hosts != null, memoryBytes(def), timeout.toMillis());
    return new JsCode(program, hosts, HttpLoader.maxResponseBytes(def));
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

  private static String sha256(String text) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    typescript.close();
  }
}
