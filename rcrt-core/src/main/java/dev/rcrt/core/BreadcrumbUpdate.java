package dev.rcrt.core;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A change to an existing breadcrumb (RCRT's PATCH body). Every field is optional: null leaves the
 * stored value as it is; a present field replaces it whole. The schema name and id never change.
 *
 * @param title new title, or null
 * @param description new description, or null
 * @param semanticVersion new version label, or null
 * @param context new context object (replaces the old one whole), or null
 * @param tags new tag list (replaces the old one), or null
 * @param llmHints new {@code llm_hints}, or null
 * @param visibility new visibility, or null
 * @param sensitivity new sensitivity, or null
 * @param updatedBy the writer's id, or null
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record BreadcrumbUpdate(
    @JsonProperty("title") @Nullable String title,
    @JsonProperty("description") @Nullable String description,
    @JsonProperty("semantic_version") @Nullable String semanticVersion,
    @JsonProperty("context") @Nullable JsonNode context,
    @JsonProperty("tags") @Nullable List<String> tags,
    @JsonProperty("llm_hints") @Nullable JsonNode llmHints,
    @JsonProperty("visibility") @Nullable Visibility visibility,
    @JsonProperty("sensitivity") @Nullable Sensitivity sensitivity,
    @JsonProperty("updated_by") @Nullable String updatedBy) {

  /**
   * Validates and copies.
   *
   * @throws ValidationException if a context is given that is not a JSON object
   */
  public BreadcrumbUpdate {
    if (context != null && !context.isObject()) {
      throw new ValidationException(
          "breadcrumb update context: expected object, found " + context.getNodeType());
    }
    tags = tags == null ? null : List.copyOf(tags);
  }

  /** An update that replaces only the context. */
  public static BreadcrumbUpdate ofContext(JsonNode context) {
    return new BreadcrumbUpdate(null, null, null, context, null, null, null, null, null);
  }

  /** The same update with the tag list replaced. */
  public BreadcrumbUpdate withTags(List<String> newTags) {
    return new BreadcrumbUpdate(
        title, description, semanticVersion, context, newTags, llmHints, visibility, sensitivity,
        updatedBy);
  }

  /** The same update written by {@code writer} (see {@link Principal#wire()}). */
  public BreadcrumbUpdate withUpdatedBy(@Nullable String writer) {
    return new BreadcrumbUpdate(
        title, description, semanticVersion, context, tags, llmHints, visibility, sensitivity, writer);
  }

  /** An update that makes a stored breadcrumb look like {@code create} (all fields but id). */
  public static BreadcrumbUpdate replacing(BreadcrumbCreate create) {
    return new BreadcrumbUpdate(
        create.title(), create.description(), create.semanticVersion(), create.context(),
        create.tags(), create.llmHints(), create.visibility(), create.sensitivity(),
        create.createdBy());
  }
}
