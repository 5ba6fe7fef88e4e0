package dev.rcrt.core;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a caller supplies to create a breadcrumb. Its JSON form is RCRT's bootstrap-breadcrumbs
 * format: {@code {schema_name, title, tags, context, llm_hints?, description?, semantic_version?,
 * id?, visibility?, sensitivity?, ttl?, ttl_type?, ttl_config?}}; unknown fields are ignored.
 *
 * <p>The store assigns version, checksum, timestamps and size. Build one with {@link
 * #builder(String, String)}.
 *
 * @param id the id to use (at most {@value #MAX_ID_LENGTH} characters, no control characters), or
 *     null to let the store assign a UUID
 * @param title short human title; required
 * @param description longer text, or null
 * @param semanticVersion the author's version label, or null
 * @param context the JSON payload; an empty object when null
 * @param tags tags; copied, empty when null
 * @param schemaName the schema of the context, or null
 * @param llmHints RCRT {@code llm_hints}, or null
 * @param visibility null for {@link Visibility#TEAM}, RCRT's default
 * @param sensitivity null for {@link Sensitivity#LOW}
 * @param ttl absolute expiry, or null
 * @param ttlType expiry policy, or null
 * @param ttlConfig expiry settings, or null
 * @param createdBy the writer's id, or null
 * @param idempotencyKey a key that makes a repeated create return the original record instead of a
 *     duplicate, or null
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record BreadcrumbCreate(
    @JsonProperty("id") @Nullable String id,
    @JsonProperty("title") String title,
    @JsonProperty("description") @Nullable String description,
    @JsonProperty("semantic_version") @Nullable String semanticVersion,
    @JsonProperty("context") JsonNode context,
    @JsonProperty("tags") List<String> tags,
    @JsonProperty("schema_name") @Nullable String schemaName,
    @JsonProperty("llm_hints") @Nullable JsonNode llmHints,
    @JsonProperty("visibility") @Nullable Visibility visibility,
    @JsonProperty("sensitivity") @Nullable Sensitivity sensitivity,
    @JsonProperty("ttl") @Nullable Instant ttl,
    @JsonProperty("ttl_type") @Nullable TtlType ttlType,
    @JsonProperty("ttl_config") @Nullable JsonNode ttlConfig,
    @JsonProperty("created_by") @Nullable String createdBy,
    @JsonProperty("idempotency_key") @Nullable String idempotencyKey) {

  /**
   * Validates and copies.
   *
   * @throws ValidationException if the title is missing or the context is not a JSON object
   */
  public BreadcrumbCreate {
    if (title == null || title.isBlank()) {
      throw new ValidationException("breadcrumb title is required");
    }
    context = context == null || context.isNull() ? RcrtJson.object() : context;
    if (!context.isObject()) {
      throw new ValidationException(
          "breadcrumb '" + title + "' context: expected object, found " + context.getNodeType());
    }
    tags = tags == null ? List.of() : List.copyOf(tags);
    if (id != null && id.isBlank()) {
      throw new ValidationException("breadcrumb '" + title + "' id: must not be blank");
    }
    if (id != null && (id.length() > MAX_ID_LENGTH || id.chars().anyMatch(Character::isISOControl))) {
      // ids go into logs, URIs and error messages: none carries a forged line or a megabyte
      throw new ValidationException("breadcrumb '" + title + "' id: at most " + MAX_ID_LENGTH
          + " characters and no control characters; leave it out and the store assigns a UUID");
    }
  }

  /** The longest id a create may give: 512 characters. */
  public static final int MAX_ID_LENGTH = 512;

  /** {@link #visibility()}, or {@link Visibility#TEAM} (RCRT's default) when it sets none. */
  public Visibility visibilityOrDefault() {
    return visibility != null ? visibility : Visibility.TEAM;
  }

  /** {@link #sensitivity()}, or {@link Sensitivity#LOW} (RCRT's default) when it sets none. */
  public Sensitivity sensitivityOrDefault() {
    return sensitivity != null ? sensitivity : Sensitivity.LOW;
  }

  /** The same payload with {@code newContext} (an object). */
  public BreadcrumbCreate withContext(JsonNode newContext) {
    return new BreadcrumbCreate(
        id, title, description, semanticVersion, newContext, tags, schemaName, llmHints,
        visibility, sensitivity, ttl, ttlType, ttlConfig, createdBy, idempotencyKey);
  }

  /** The same payload written by {@code writer} (see {@link Principal#wire()}). */
  public BreadcrumbCreate withCreatedBy(@Nullable String writer) {
    return new BreadcrumbCreate(
        id, title, description, semanticVersion, context, tags, schemaName, llmHints,
        visibility, sensitivity, ttl, ttlType, ttlConfig, writer, idempotencyKey);
  }

  /** The same payload with {@code id}. */
  public BreadcrumbCreate withId(String id) {
    return new BreadcrumbCreate(
        Objects.requireNonNull(id, "id"), title, description, semanticVersion, context, tags, schemaName, llmHints,
        visibility, sensitivity, ttl, ttlType, ttlConfig, createdBy, idempotencyKey);
  }

  /** The same payload with {@code more} tags after its own. */
  public BreadcrumbCreate withTags(List<String> more) {
    List<String> all = new java.util.ArrayList<>(tags);
    all.addAll(more);
    return new BreadcrumbCreate(
        id, title, description, semanticVersion, context, all, schemaName, llmHints,
        visibility, sensitivity, ttl, ttlType, ttlConfig, createdBy, idempotencyKey);
  }

  /** The same payload with idempotency key {@code key}: a second create with it returns the first record. */
  public BreadcrumbCreate withIdempotencyKey(String key) {
    return new BreadcrumbCreate(
        id, title, description, semanticVersion, context, tags, schemaName, llmHints,
        visibility, sensitivity, ttl, ttlType, ttlConfig, createdBy, Objects.requireNonNull(key, "key"));
  }

  /**
   * Starts a builder.
   *
   * @param schemaName the schema, for example {@code "user.message.v1"}
   * @param title the human title
   */
  public static Builder builder(String schemaName, String title) {
    return new Builder(Objects.requireNonNull(schemaName, "schemaName"), title);
  }

  /** Builder for {@link BreadcrumbCreate}. Not thread-safe. */
  public static final class Builder {
    private @Nullable String id;
    private final String title;
    private @Nullable String description;
    private @Nullable String semanticVersion;
    private JsonNode context = RcrtJson.object();
    private List<String> tags = List.of();
    private final String schemaName;
    private @Nullable JsonNode llmHints;
    private @Nullable Visibility visibility;
    private @Nullable Sensitivity sensitivity;
    private @Nullable Instant ttl;
    private @Nullable TtlType ttlType;
    private @Nullable JsonNode ttlConfig;
    private @Nullable String createdBy;
    private @Nullable String idempotencyKey;

    private Builder(String schemaName, String title) {
      this.schemaName = schemaName;
      this.title = Objects.requireNonNull(title, "title");
    }

    /** The id to use instead of a store-assigned UUID. */
    public Builder id(String id) {
      this.id = Objects.requireNonNull(id, "id");
      return this;
    }

    /** A longer description, or null for none. */
    public Builder description(@Nullable String description) {
      this.description = description;
      return this;
    }

    /** RCRT's {@code semantic_version} label, or null for none. */
    public Builder semanticVersion(@Nullable String semanticVersion) {
      this.semanticVersion = semanticVersion;
      return this;
    }

    /** The JSON payload; must be an object. */
    public Builder context(JsonNode context) {
      this.context = Objects.requireNonNull(context, "context");
      return this;
    }

    /** The tags, replacing any set before; copied. */
    public Builder tags(List<String> tags) {
      this.tags = List.copyOf(tags);
      return this;
    }

    /** The tags, replacing any set before. */
    public Builder tags(String... tags) {
      return tags(Arrays.asList(tags));
    }

    /** The record's own {@code llm_hints}, or null to use its schema definition's. */
    public Builder llmHints(@Nullable JsonNode llmHints) {
      this.llmHints = llmHints;
      return this;
    }

    /** Who may read it; null for the store's default ({@link Visibility#TEAM}). */
    public Builder visibility(@Nullable Visibility visibility) {
      this.visibility = visibility;
      return this;
    }

    /** How sensitive its content is; null for the store's default ({@link Sensitivity#LOW}). */
    public Builder sensitivity(@Nullable Sensitivity sensitivity) {
      this.sensitivity = sensitivity;
      return this;
    }

    /**
     * How the record expires: RCRT's {@code ttl}, {@code ttl_type} and {@code ttl_config} (such as
     * {@code {"max_reads": 3}} for {@link TtlType#USAGE}); all null for never.
     */
    public Builder ttl(@Nullable Instant ttl, @Nullable TtlType ttlType, @Nullable JsonNode config) {
      this.ttl = ttl;
      this.ttlType = ttlType;
      this.ttlConfig = config;
      return this;
    }

    /**
     * The writer to record, such as {@code "agent:planner"}; null for the store's own principal. A
     * store may refuse a claim its caller cannot make.
     */
    public Builder createdBy(@Nullable String createdBy) {
      this.createdBy = createdBy;
      return this;
    }

    /** A key that makes a repeated create return the original record instead of a duplicate. */
    public Builder idempotencyKey(@Nullable String idempotencyKey) {
      this.idempotencyKey = idempotencyKey;
      return this;
    }

    /** @throws ValidationException if the context is not an object */
    public BreadcrumbCreate build() {
      return new BreadcrumbCreate(
          id, title, description, semanticVersion, context, tags, schemaName, llmHints,
          visibility, sensitivity, ttl, ttlType, ttlConfig, createdBy, idempotencyKey);
    }
  }
}
