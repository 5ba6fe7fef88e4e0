package dev.rcrt.core;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import dev.rcrt.core.internal.Mapper;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Which breadcrumbs a search or a subscription wants: RCRT's selector {@code {any_tags, all_tags,
 * schema_name, context_match: [{path, op, value}]}}.
 *
 * <p>All present conditions must hold: at least one of {@code any_tags} (when non-empty), every
 * one of {@code all_tags}, the exact {@code schema_name} (when non-null) and every {@code
 * context_match}. An empty selector matches every breadcrumb. The same matching serves store
 * search and subscriptions. Paths and operators are validated when the selector is built, so a
 * malformed selector fails at once with a {@link ValidationException}, never passes silently.
 *
 * @param anyTags at least one must be present; copied, empty for no condition
 * @param allTags all must be present; copied
 * @param schemaName the exact schema name, or null for any
 * @param contextMatch conditions on the context; copied
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record Selector(
    @JsonProperty("any_tags") List<String> anyTags,
    @JsonProperty("all_tags") List<String> allTags,
    @JsonProperty("schema_name") @Nullable String schemaName,
    @JsonProperty("context_match") List<ContextMatch> contextMatch) {

  /** Copies the lists; null lists are empty. */
  public Selector {
    anyTags = anyTags == null ? List.of() : List.copyOf(anyTags);
    allTags = allTags == null ? List.of() : List.copyOf(allTags);
    contextMatch = contextMatch == null ? List.of() : List.copyOf(contextMatch);
  }

  /** The selector that matches every breadcrumb. */
  public static Selector all() {
    return new Selector(List.of(), List.of(), null, List.of());
  }

  /** Breadcrumbs of one schema. */
  public static Selector schema(String schemaName) {
    return new Selector(List.of(), List.of(), schemaName, List.of());
  }

  /** Breadcrumbs carrying every one of the tags. */
  public static Selector allTags(String... tags) {
    return new Selector(List.of(), Arrays.asList(tags), null, List.of());
  }

  /** Breadcrumbs carrying at least one of the tags. */
  public static Selector anyTags(String... tags) {
    return new Selector(Arrays.asList(tags), List.of(), null, List.of());
  }

  /** This selector with {@code tags} added to {@code all_tags}. */
  public Selector withAllTags(String... tags) {
    List<String> merged = new ArrayList<>(allTags);
    merged.addAll(Arrays.asList(tags));
    return new Selector(anyTags, merged, schemaName, contextMatch);
  }

  /** This selector with one more {@code context_match} condition. */
  public Selector withMatch(ContextMatch match) {
    List<ContextMatch> merged = new ArrayList<>(contextMatch);
    merged.add(match);
    return new Selector(anyTags, allTags, schemaName, merged);
  }

  /**
   * Reads a selector from RCRT JSON.
   *
   * @throws ValidationException if it is not a JSON object of the selector shape, or a path or
   *     operator is invalid
   */
  public static Selector fromJson(JsonNode json) {
    if (!json.isObject()) {
      throw new ValidationException("selector: expected a JSON object, found " + json.getNodeType());
    }
    try {
      return Mapper.SHARED.treeToValue(json, Selector.class);
    } catch (ValueInstantiationException e) {
      if (e.getCause() instanceof ValidationException v) {
        throw v;
      }
      throw new ValidationException("selector: " + e.getOriginalMessage());
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      if (e.getCause() instanceof ValidationException v) {
        throw v;
      }
      throw new ValidationException("selector: " + e.getOriginalMessage());
    }
  }

  /**
   * Whether {@code breadcrumb} meets every condition of this selector.
   *
   * <p>Thread-safe; paths are compiled once and cached.
   */
  public boolean matches(Breadcrumb breadcrumb) {
    if (schemaName != null && !schemaName.equals(breadcrumb.schemaName())) {
      return false;
    }
    List<String> tags = breadcrumb.tags();
    if (!tags.containsAll(allTags)) {
      return false;
    }
    if (!anyTags.isEmpty() && anyTags.stream().noneMatch(tags::contains)) {
      return false;
    }
    for (ContextMatch match : contextMatch) {
      if (!dev.rcrt.core.internal.ContextMatcher.test(match, breadcrumb.context())) {
        return false;
      }
    }
    return true;
  }
}
