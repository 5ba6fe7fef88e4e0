package dev.rcrt.core;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One stored RCRT breadcrumb, as the server returns it: a versioned JSON record with a title,
 * tags, a schema name and a {@code context} object.
 *
 * <p>The JSON form uses RCRT's wire field names: {@code id, title, description, semantic_version,
 * context, tags, schema_name, llm_hints, visibility, sensitivity, version, checksum, ttl, ttl_type,
 * ttl_config, created_at, updated_at, created_by, updated_by, size_bytes}. Unknown fields are
 * ignored on read; null fields are omitted on write.
 *
 * <p>Instances are produced by a {@link BreadcrumbStore}; to write one, use {@link
 * BreadcrumbCreate} or {@link BreadcrumbUpdate}. The record is immutable except that {@link
 * #context()} and {@link #llmHints()} are Jackson trees shared with the store: treat them as
 * read-only and {@code deepCopy()} before changing them.
 *
 * @param id unique id: a UUID when the store assigned it, else as the file or caller gave it
 * @param title short human title
 * @param description longer text, or null
 * @param semanticVersion the author's version label (for example {@code "1.0.0"}), or null
 * @param context the record's JSON payload; an object, never null
 * @param tags tags such as {@code "session:abc"} or {@code "tool:request"}; copied
 * @param schemaName the schema of the context, for example {@code "tool.response.v1"}, or null
 * @param llmHints RCRT {@code llm_hints} shaping the LLM view of this record, or null
 * @param visibility who may read the record
 * @param sensitivity how sensitive the content is
 * @param version the store's version, 1 on create and +1 per update
 * @param checksum {@code "sha256:"} + lowercase hex of the compact JSON of {@code context}
 * @param ttl absolute expiry time, or null
 * @param ttlType the expiry policy, or null for never
 * @param ttlConfig expiry settings ({@code duration}, {@code max_reads}), or null
 * @param createdAt when version 1 was written
 * @param updatedAt when the current version was written
 * @param createdBy the writer of version 1, or null
 * @param updatedBy the writer of the current version, or null
 * @param sizeBytes size of the compact context JSON in UTF-8 bytes
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Breadcrumb(
    @JsonProperty("id") String id,
    @JsonProperty("title") String title,
    @JsonProperty("description") @Nullable String description,
    @JsonProperty("semantic_version") @Nullable String semanticVersion,
    @JsonProperty("context") JsonNode context,
    @JsonProperty("tags") List<String> tags,
    @JsonProperty("schema_name") @Nullable String schemaName,
    @JsonProperty("llm_hints") @Nullable JsonNode llmHints,
    @JsonProperty("visibility") Visibility visibility,
    @JsonProperty("sensitivity") Sensitivity sensitivity,
    @JsonProperty("version") long version,
    @JsonProperty("checksum") String checksum,
    @JsonProperty("ttl") @Nullable Instant ttl,
    @JsonProperty("ttl_type") @Nullable TtlType ttlType,
    @JsonProperty("ttl_config") @Nullable JsonNode ttlConfig,
    @JsonProperty("created_at") Instant createdAt,
    @JsonProperty("updated_at") Instant updatedAt,
    @JsonProperty("created_by") @Nullable String createdBy,
    @JsonProperty("updated_by") @Nullable String updatedBy,
    @JsonProperty("size_bytes") long sizeBytes) {

  /** Validates required fields and copies the tag list; absent enums take RCRT's defaults. */
  public Breadcrumb {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(title, "title");
    context = context == null ? RcrtJson.object() : context;
    tags = tags == null ? List.of() : List.copyOf(tags);
    visibility = visibility == null ? Visibility.TEAM : visibility;
    sensitivity = sensitivity == null ? Sensitivity.LOW : sensitivity;
    checksum = checksum == null ? "" : checksum;
    Objects.requireNonNull(createdAt, "createdAt");
    updatedAt = updatedAt == null ? createdAt : updatedAt;
  }

  /**
   * A schema name that names a secret: a segment {@code secret(s)}, {@code credential(s)}, {@code
   * password(s)}, {@code passwd}, {@code api_key(s)}, {@code private_key(s)}, {@code access_key(s)}
   * or {@code token(s)} ({@code _} or {@code -} between two words, or none).
   */
  private static final java.util.regex.Pattern SECRET_SCHEMA = java.util.regex.Pattern.compile(
      "(?i)(^|[._-])(secrets?|credentials?|passwords?|passwd|api[_-]?keys?|private[_-]?keys?|access[_-]?keys?|tokens?)([._-]|$)");

  /**
   * Whether this record holds a secret, the one definition every reader of records for a model or
   * a tool uses (search tools, the JavaScript {@code context.api}, context views, the embedding
   * policy): its {@code sensitivity} is {@code Secret}, or its schema names a secret, RCRT's {@code
   * secret.v1} and its lookalikes ({@code secrets.v1}, {@code secret.v2}, {@code app.secret.v1},
   * {@code credentials.v1}, {@code password.v1}, {@code api_key.v1}, {@code oauth.token.v1},
   * {@code ssh.private_key.v1}, any case). Such a record's
   * context is never shown to a model or a tool and never embedded; its title, tags and id are.
   */
  public boolean isSecret() {
    return sensitivity == Sensitivity.SECRET || schemaName != null && SECRET_SCHEMA.matcher(schemaName).find();
  }

  /** Whether {@link #tags()} contains {@code tag} exactly. */
  public boolean hasTag(String tag) {
    return tags.contains(tag);
  }

  /**
   * The value of the first tag of the form {@code prefix + value}, for example {@code
   * tagValue("session:")} on a record tagged {@code session:42} gives {@code "42"}.
   */
  public Optional<String> tagValue(String prefix) {
    for (String tag : tags) {
      if (tag.startsWith(prefix)) {
        return Optional.of(tag.substring(prefix.length()));
      }
    }
    return Optional.empty();
  }

  /** The text of {@code context.<field>}, or null when absent or not a scalar. */
  public @Nullable String contextText(String field) {
    JsonNode value = context.get(field);
    return value == null || value.isNull() || value.isContainerNode() ? null : value.asText();
  }
}
