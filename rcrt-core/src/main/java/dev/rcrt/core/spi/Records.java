package dev.rcrt.core.spi;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbUpdate;
import dev.rcrt.core.internal.JsonDepth;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * How every store turns a create or an update into the stored record: the checks (nesting limit,
 * TTL settings) and the fields (version, checksum, size, timestamps, who wrote it). One definition,
 * so that every store's records are the same record.
 */
public final class Records {
  private Records() {}

  /**
   * The {@code timestamp} RCRT's conversation records carry in their context ({@code
   * user.message.v1}, {@code tool.response.v1}, {@code agent.response.v1}): the wall clock now, as
   * ISO-8601 in UTC with milliseconds, as JavaScript's {@code new Date().toISOString()} writes it.
   */
  public static String timestamp() {
    long now = System.currentTimeMillis();
    Stamp last = lastStamp;
    if (last.millis != now) {
      last = new Stamp(now, java.time.Instant.ofEpochMilli(now).toString());
      lastStamp = last;
    }
    return last.text;
  }

  /** The last timestamp formatted: records written within one millisecond share the text. */
  private record Stamp(long millis, String text) {}

  private static volatile Stamp lastStamp = new Stamp(-1, "");

  /**
   * Checks a create payload before anything is written.
   *
   * @throws dev.rcrt.core.ValidationException if the context or hints nest too deep or the TTL is malformed
   */
  public static void check(BreadcrumbCreate create) {
    String where = "breadcrumb '" + create.title() + "'";
    JsonDepth.check(create.context(), where + " context");
    if (create.llmHints() != null) {
      JsonDepth.check(create.llmHints(), where + " llm_hints");
    }
    Expiry.validate(create);
  }

  /**
   * Checks an update payload before anything is written.
   *
   * @throws dev.rcrt.core.ValidationException if the context or hints nest too deep
   */
  public static void check(String id, BreadcrumbUpdate update) {
    String where = "breadcrumb '" + id + "'";
    if (update.context() != null) {
      JsonDepth.check(update.context(), where + " context");
    }
    if (update.llmHints() != null) {
      JsonDepth.check(update.llmHints(), where + " llm_hints");
    }
  }

  /** Version 1 of a checked payload, with its own copies of the JSON trees. */
  public static Breadcrumb created(BreadcrumbCreate create, String id, Instant now) {
    JsonNode context = create.context().deepCopy();
    ContentDigest digest = ContentDigest.of(context);
    return new Breadcrumb(
        id, create.title(), create.description(), create.semanticVersion(), context,
        create.tags(), create.schemaName(), copy(create.llmHints()), create.visibilityOrDefault(),
        create.sensitivityOrDefault(), 1, digest.checksum(), create.ttl(), create.ttlType(),
        copy(create.ttlConfig()), now, now, create.createdBy(), create.createdBy(),
        digest.sizeBytes());
  }

  /** The version after {@code old} with a checked update applied; fields the update leaves null are kept. */
  public static Breadcrumb updated(Breadcrumb old, BreadcrumbUpdate update, Instant now) {
    JsonNode context = update.context() != null ? update.context().deepCopy() : old.context();
    ContentDigest digest =
        update.context() != null ? ContentDigest.of(context) : new ContentDigest(old.checksum(), old.sizeBytes());
    return new Breadcrumb(
        old.id(),
        or(update.title(), old.title()),
        or(update.description(), old.description()),
        or(update.semanticVersion(), old.semanticVersion()),
        context,
        or(update.tags(), old.tags()),
        old.schemaName(),
        update.llmHints() != null ? copy(update.llmHints()) : old.llmHints(),
        or(update.visibility(), old.visibility()),
        or(update.sensitivity(), old.sensitivity()),
        old.version() + 1,
        digest.checksum(),
        old.ttl(),
        old.ttlType(),
        old.ttlConfig(),
        old.createdAt(),
        now,
        old.createdBy(),
        update.updatedBy(),
        digest.sizeBytes());
  }

  private static <T extends @Nullable Object> T or(@Nullable T value, T fallback) {
    return value != null ? value : fallback;
  }

  private static @Nullable JsonNode copy(@Nullable JsonNode node) {
    return node == null ? null : node.deepCopy();
  }
}
