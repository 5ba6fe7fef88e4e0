package dev.rcrt.tools.js.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.RcrtException;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.spi.Ids;
import dev.rcrt.tools.ToolRuntime;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Transpiled TypeScript kept in the store, so the compiler loads once per source per store, not once
 * per process: a {@code tool.transpiled.v1} record {@code {source_sha256, compiler, javascript}}
 * under an id derived from the source's checksum and the compiler's version, written by the host
 * (the runtime, on its own behalf) after a successful transpile.
 *
 * <p>A record is used only if it is the one for this source and this compiler (its id, its {@code
 * source_sha256} and its {@code compiler} all agree) and the trust policy trusts it as it trusts a
 * tool ({@code tool.transpiled.v1} is one of {@code ToolTrustPolicy.PROTECTED_SCHEMAS}): by default
 * the host must have written it, so a tool or an agent cannot plant JavaScript for another tool's
 * TypeScript; under {@code requireSignatures} it must be signed by a trusted publisher, so in a store
 * many writers share, an unsigned one is ignored and the source is transpiled in the process (and
 * none is written). Anything else (another writer, a mismatch, a malformed record, a store that
 * fails) means transpiling again; it never fails a tool. Stateless and thread-safe.
 */
final class SharedTranspiles {
  static final String SCHEMA = "tool.transpiled.v1";
  private static final int MAX_JAVASCRIPT_CHARS = 8 << 20;
  private static final Logger LOG = LoggerFactory.getLogger(SharedTranspiles.class);

  private SharedTranspiles() {}

  /** The record id for {@code checksum} transpiled by {@code compiler}. */
  static String idOf(String checksum, String compiler) {
    return Ids.named(SCHEMA + ":" + compiler + ":" + checksum);
  }

  /** The JavaScript kept for {@code checksum} by {@code compiler}, when the store has a record this runtime may trust. */
  static @Nullable String find(ToolRuntime.Services services, String checksum, String compiler) {
    Optional<Breadcrumb> found;
    try {
      found = services.store().get(idOf(checksum, compiler));
    } catch (RcrtException e) {
      LOG.debug("transpiled TypeScript {} not read from the store: {}", checksum, e.getMessage());
      return null;
    }
    if (found.isEmpty()) {
      return null;
    }
    Breadcrumb b = found.get();
    JsonNode c = b.context();
    JsonNode js = c.path("javascript");
    if (!SCHEMA.equals(b.schemaName()) || !checksum.equals(c.path("source_sha256").asText())
        || !compiler.equals(c.path("compiler").asText()) || !js.isTextual() || js.textValue().length() > MAX_JAVASCRIPT_CHARS) {
      LOG.warn("transpiled TypeScript record '{}' ignored: it is not the one for source {} and {}", b.id(), checksum, compiler);
      return null;
    }
    String untrusted = services.policy().whyUntrusted(b);
    if (untrusted != null) {
      LOG.warn("transpiled TypeScript record '{}' ignored: {}", b.id(), untrusted);
      return null;
    }
    return js.textValue();
  }

  /**
   * Keeps {@code javascript} for the next process: a record already there with the same content
   * (another process's) is left as it is; one that differs (stale, altered, or written by someone
   * not trusted) is replaced, so the next process does not transpile again.
   */
  static void keep(ToolRuntime.Services services, String tool, String checksum, String compiler, String javascript) {
    if (javascript.length() > MAX_JAVASCRIPT_CHARS) {
      return;
    }
    BreadcrumbCreate record = BreadcrumbCreate.builder(SCHEMA, "TypeScript of " + tool)
        .id(idOf(checksum, compiler))
        .tags("transpiled", "tool:" + tool)
        .context(RcrtJson.object().put("source_sha256", checksum).put("compiler", compiler).put("javascript", javascript))
        .build();
    try {
      dev.rcrt.core.BreadcrumbFiles.upsert(services.store(), record);
    } catch (RcrtException e) {
      LOG.debug("transpiled TypeScript {} not kept in the store: {}", checksum, e.getMessage());
    }
  }
}
