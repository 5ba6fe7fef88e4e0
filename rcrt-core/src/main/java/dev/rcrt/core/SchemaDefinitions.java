package dev.rcrt.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.JsonSchema;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * RCRT schema definitions: a {@code schema.def.v1} breadcrumb tagged {@code defines:<schema_name>}
 * describes the contexts of that schema with {@code field_definitions: {field: {type, required,
 * description}}} and, optionally, a full JSON Schema in {@code context.schema} (or {@code
 * json_schema}). Both must hold.
 *
 * <p>Field types are JSON Schema's ({@code string, number, integer, boolean, array, object}); the
 * common aliases {@code int, float, double, bool, list, dict, map} are understood, and {@code any}
 * means no type. Compiled definitions are cached by the version of their breadcrumb.
 *
 * <p>A definition shapes what models are shown ({@code llm_hints}) and what the store accepts, so
 * only definitions whose last writer ({@link Principal#writerOf}) is trusted take effect: by
 * default the host's. Others are skipped with a logged warning.
 *
 * <p>Thread-safe.
 */
public final class SchemaDefinitions {
  private static final Map<String, String> ALIASES =
      Map.of("int", "integer", "float", "number", "double", "number", "bool", "boolean", "list", "array", "dict", "object", "map", "object", "str", "string");

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SchemaDefinitions.class);
  private static final int SCAN = 20;

  private final BreadcrumbStore store;
  private final Predicate<Principal> trusted;
  private final ConcurrentHashMap<String, Compiled> cache = new ConcurrentHashMap<>();

  private record Compiled(long version, JsonSchema schema) {}

  private SchemaDefinitions(BreadcrumbStore store, Predicate<Principal> trusted) {
    this.store = store;
    this.trusted = trusted;
  }

  /** Definitions read from {@code store}, written by the host. */
  public static SchemaDefinitions of(BreadcrumbStore store) {
    return of(store, Principal::isHost);
  }

  /** Definitions read from {@code store}, written by a writer {@code trusted} accepts. */
  public static SchemaDefinitions of(BreadcrumbStore store, Predicate<Principal> trusted) {
    return new SchemaDefinitions(Objects.requireNonNull(store, "store"), Objects.requireNonNull(trusted, "trusted"));
  }

  /** The newest trusted {@code schema.def.v1} tagged {@code defines:<schemaName>}. */
  public Optional<Breadcrumb> definition(@Nullable String schemaName) {
    if (schemaName == null) {
      return Optional.empty();
    }
    List<Breadcrumb> found = store.search(Selector.schema(ContextView.SCHEMA_DEFINITION).withAllTags("defines:" + schemaName), SCAN, 0);
    for (Breadcrumb b : found) {
      Principal writer = Principal.writerOf(b);
      if (trusted.test(writer)) {
        return Optional.of(b);
      }
      LOG.warn("schema definition '{}' for {} ignored: written by {}, who is not trusted", b.id(), schemaName, writer);
    }
    return Optional.empty();
  }

  /**
   * How {@code context} breaks the definition of {@code schemaName}.
   *
   * @return each violation as {@code "<JSON pointer>: <message>"}; empty when it conforms or the
   *     schema has no definition
   * @throws ValidationException if the definition itself is malformed, naming it
   */
  public List<String> violations(@Nullable String schemaName, JsonNode context) {
    Optional<Breadcrumb> def = definition(schemaName);
    if (def.isEmpty()) {
      return List.of();
    }
    Breadcrumb d = def.get();
    Compiled hit = cache.get(d.id());
    if (hit == null || hit.version() != d.version()) {
      try {
        hit = new Compiled(d.version(), JsonSchema.compile(jsonSchema(d.context())));
      } catch (ValidationException e) {
        throw new ValidationException("schema definition '" + d.id() + "' for " + schemaName + " is malformed: " + e.getMessage());
      }
      cache.put(d.id(), hit);
    }
    return hit.schema().violations(context);
  }

  /** The JSON Schema a definition context stands for: its field definitions, and its own schema if any. */
  static JsonNode jsonSchema(JsonNode definition) {
    ObjectNode fields = RcrtJson.object().put("type", "object");
    ObjectNode properties = fields.putObject("properties");
    ArrayNode required = RcrtJson.array();
    for (Map.Entry<String, JsonNode> f : definition.path("field_definitions").properties()) {
      ObjectNode prop = properties.putObject(f.getKey());
      String type = f.getValue().path("type").asText("any").toLowerCase(Locale.ROOT);
      type = ALIASES.getOrDefault(type, type);
      if (type.equals("datetime")) {
        prop.put("type", "string").put("format", "date-time"); // RCRT's datetime: an ISO-8601 date-time string
      } else if (!type.equals("any")) {
        prop.put("type", type);
      }
      if (f.getValue().path("required").asBoolean(false)) {
        required.add(f.getKey());
      }
    }
    if (!required.isEmpty()) {
      fields.set("required", required);
    }
    JsonNode own = definition.has("schema") ? definition.get("schema") : definition.get("json_schema");
    if (own == null || !own.isObject()) {
      return fields;
    }
    ObjectNode both = RcrtJson.object();
    both.putArray("allOf").add(fields).add(own);
    return both;
  }
}
