package dev.rcrt.core;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A breadcrumb as an agent sees it: its identity and its context shaped by {@code llm_hints}
 * (RCRT's {@code GET /breadcrumbs/{id}} answer). Produced by {@link ContextView}; the context is
 * read-only and may share subtrees with the stored record.
 *
 * @param id the breadcrumb id
 * @param title the title
 * @param schemaName the schema, or null
 * @param tags the tags; copied
 * @param version the stored version the view was made from
 * @param context the hints-applied context
 */
public record BreadcrumbView(
    @JsonProperty("id") String id,
    @JsonProperty("title") String title,
    @JsonProperty("schema_name") @Nullable String schemaName,
    @JsonProperty("tags") List<String> tags,
    @JsonProperty("version") long version,
    @JsonProperty("context") JsonNode context) {

  /** Validates and copies. */
  public BreadcrumbView {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(title, "title");
    tags = List.copyOf(tags);
    Objects.requireNonNull(context, "context");
  }
}
