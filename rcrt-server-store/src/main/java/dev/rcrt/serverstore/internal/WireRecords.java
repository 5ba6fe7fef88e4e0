package dev.rcrt.serverstore.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbUpdate;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.spi.ContentDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Between the SDK's records and an RCRT server's. What RCRT has no field for travels in tags with
 * the reserved prefix {@value #PREFIX}, which readers never see: a host-supplied id ({@code
 * sdk:id:<id>}, since the server assigns UUIDs), an idempotency key ({@code sdk:key:<key>}, to find
 * the original when the server answers a repeat with 409), and the SDK's writer claims ({@code
 * sdk:created_by:<w>}, {@code sdk:updated_by:<w>}, since the server records the token's agent).
 *
 * <p>Writers: a claim is honoured only on a record the server says this store's own identity
 * wrote; any other server writer reads as {@code user:<agent uuid>}, which the default trust policy
 * does not trust. Thread-safe.
 */
public final class WireRecords {
  /** The prefix of the tags this store keeps for itself. */
  public static final String PREFIX = "sdk:";
  private static final String ID = PREFIX + "id:";
  private static final String KEY = PREFIX + "key:";
  private static final String CREATED_BY = PREFIX + "created_by:";
  private static final String UPDATED_BY = PREFIX + "updated_by:";

  /** The server-side writers that are this store itself: configured, or learned from its own creates. */
  private final Set<String> own = ConcurrentHashMap.newKeySet();

  /**
   * A record as the server holds it and as the SDK sees it.
   *
   * @param serverId the server's UUID
   * @param record the SDK's view: reserved tags removed, id and writers mapped
   * @param wire the server's JSON of it
   */
  public record Stored(String serverId, Breadcrumb record, ObjectNode wire) {}

  /** Whether every server writer counts as this store's own: a server without authentication tells writers apart by nothing. */
  private volatile boolean everyone;

  /** Honours writer claims on every record: for a server with {@code AUTH_MODE=disabled}. */
  public void ownEveryone() {
    everyone = true;
  }

  /** Declares a server-side agent id as this store's own. */
  public void own(String serverWriter) {
    own.add(serverWriter);
  }

  /** The tag that finds a record by the id its creator gave. */
  public static String idTag(String id) {
    return ID + id;
  }

  /** The tag that finds the record an idempotency key created. */
  public static String keyTag(String key) {
    return KEY + key;
  }

  /** The body of {@code POST /breadcrumbs}: RCRT's fields, the SDK's extras as reserved tags. */
  public static ObjectNode createBody(BreadcrumbCreate create) {
    ObjectNode body = RcrtJson.toTree(create);
    body.remove(List.of("id", "created_by", "idempotency_key"));
    List<String> tags = new ArrayList<>(create.tags());
    if (create.id() != null) {
      tags.add(idTag(create.id()));
    }
    if (create.idempotencyKey() != null) {
      tags.add(keyTag(create.idempotencyKey()));
    }
    if (create.createdBy() != null) {
      tags.add(CREATED_BY + create.createdBy());
    }
    body.set("tags", RcrtJson.toTree(tags));
    return body;
  }

  /**
   * The body of {@code PATCH /breadcrumbs/{id}}: the update's fields, and always the whole tag
   * list, so that the reserved tags survive and the writer claim is the update's.
   *
   * @param rawTags the record's tags on the server now, reserved ones included
   */
  public static ObjectNode patchBody(BreadcrumbUpdate update, List<String> rawTags) {
    ObjectNode body = RcrtJson.toTree(update);
    body.remove("updated_by");
    List<String> tags = new ArrayList<>(update.tags() != null ? update.tags() : rawTags.stream().filter(t -> !t.startsWith(PREFIX)).toList());
    rawTags.stream().filter(t -> t.startsWith(PREFIX) && !t.startsWith(UPDATED_BY)).forEach(tags::add);
    if (update.updatedBy() != null) {
      tags.add(UPDATED_BY + update.updatedBy());
    }
    body.set("tags", RcrtJson.toTree(tags));
    return body;
  }

  /**
   * Reads {@code GET /breadcrumbs/{id}/full} (or a list item, whose missing fields take their
   * defaults: {@code created_at} = {@code updated_at}).
   *
   * @param learn whether this is a record this store just created, whose server writer is then its own
   */
  public Stored read(JsonNode wire, boolean learn) {
    ObjectNode copy = ((ObjectNode) wire).deepCopy();
    String serverId = wire.path("id").asText();
    String serverWriter = text(wire, "created_by");
    if (learn && serverWriter != null) {
      own.add(serverWriter);
    }
    List<String> tags = new ArrayList<>();
    String id = serverId;
    String createdClaim = null;
    String updatedClaim = null;
    for (JsonNode t : wire.path("tags")) {
      String tag = t.asText();
      if (tag.startsWith(ID)) {
        id = tag.substring(ID.length());
      } else if (tag.startsWith(CREATED_BY)) {
        createdClaim = tag.substring(CREATED_BY.length());
      } else if (tag.startsWith(UPDATED_BY)) {
        updatedClaim = tag.substring(UPDATED_BY.length());
      } else if (!tag.startsWith(PREFIX)) {
        tags.add(tag);
      }
    }
    copy.put("id", id);
    copy.set("tags", RcrtJson.toTree(tags));
    copy.put("created_by", writer(serverWriter, createdClaim));
    String serverUpdater = text(wire, "updated_by");
    copy.put("updated_by", serverUpdater == null && updatedClaim == null ? null : writer(serverUpdater != null ? serverUpdater : serverWriter, updatedClaim));
    if (!copy.hasNonNull("created_at")) {
      copy.set("created_at", copy.get("updated_at"));
    }
    return new Stored(serverId, RcrtJson.convert(copy, Breadcrumb.class), (ObjectNode) wire);
  }

  /**
   * The record an event describes: {@code base} (the record as last read) with the event's {@code
   * version}, {@code context}, {@code tags} and {@code updated_at}, checksum and size recomputed.
   * RCRT's events carry no title or writer; those are the base's.
   */
  public Stored fromEvent(Stored base, JsonNode event) {
    ObjectNode wire = base.wire().deepCopy();
    JsonNode context = event.path("context").isObject() ? event.get("context") : wire.path("context");
    ContentDigest digest = ContentDigest.of(context);
    wire.put("version", event.path("version").asLong());
    wire.set("context", context);
    if (event.path("tags").isArray()) {
      wire.set("tags", event.get("tags"));
    }
    if (event.hasNonNull("updated_at")) {
      wire.set("updated_at", event.get("updated_at"));
    }
    wire.put("checksum", digest.checksum()).put("size_bytes", digest.sizeBytes());
    return read(wire, false);
  }

  /**
   * What a create wrote when the server will not show it back (its TTL had already passed): the
   * payload as version 1, timed now. No reader will ever see it.
   */
  public static Breadcrumb unread(String serverId, BreadcrumbCreate create) {
    ContentDigest digest = ContentDigest.of(create.context());
    Instant now = Instant.now();
    return new Breadcrumb(
        create.id() != null ? create.id() : serverId, create.title(), create.description(), create.semanticVersion(), create.context(),
        create.tags(), create.schemaName(), create.llmHints(), create.visibilityOrDefault(), create.sensitivityOrDefault(), 1, digest.checksum(), create.ttl(),
        create.ttlType(), create.ttlConfig(), now, now, create.createdBy(), null, digest.sizeBytes());
  }

  /** The raw tags of a server record. */
  public static List<String> rawTags(JsonNode wire) {
    List<String> tags = new ArrayList<>();
    wire.path("tags").forEach(t -> tags.add(t.asText()));
    return tags;
  }

  /**
   * RCRT's history (earlier context versions only: {@code [{version, context, updated_at,
   * updated_by}]}) with the current record, as the SDK's full records, oldest first.
   */
  public List<Breadcrumb> history(Stored current, JsonNode earlier) {
    List<Breadcrumb> out = new ArrayList<>();
    List<JsonNode> entries = new ArrayList<>();
    earlier.forEach(entries::add);
    entries.sort((a, b) -> Long.compare(a.path("version").asLong(), b.path("version").asLong()));
    Breadcrumb now = current.record();
    for (JsonNode e : entries) {
      long version = e.path("version").asLong();
      if (version >= now.version()) {
        continue;
      }
      JsonNode context = e.path("context").isObject() ? e.get("context") : RcrtJson.object();
      ContentDigest digest = ContentDigest.of(context);
      Instant at = e.hasNonNull("updated_at") ? Instant.parse(e.get("updated_at").asText()) : now.createdAt();
      String by = version == 1 ? now.createdBy() : writer(text(e, "updated_by"), null);
      out.add(new Breadcrumb(
          now.id(), now.title(), now.description(), now.semanticVersion(), context, now.tags(), now.schemaName(), now.llmHints(),
          now.visibility(), now.sensitivity(), version, digest.checksum(), now.ttl(), now.ttlType(), now.ttlConfig(),
          now.createdAt(), at, now.createdBy(), version == 1 ? null : by, digest.sizeBytes()));
    }
    out.add(now);
    return out;
  }

  private @Nullable String writer(@Nullable String server, @Nullable String claim) {
    if (server == null || everyone || own.contains(server)) {
      return claim;
    }
    return "user:" + server;
  }

  private static @Nullable String text(JsonNode wire, String field) {
    JsonNode v = wire.get(field);
    return v == null || v.isNull() ? null : v.asText();
  }
}
