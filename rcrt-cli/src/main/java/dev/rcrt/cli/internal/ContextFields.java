package dev.rcrt.cli.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.tools.ToolDefinition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.commons.text.similarity.LevenshteinDistance;
import org.jspecify.annotations.Nullable;

/**
 * The context fields of the schemas the SDK reads (tools, agents), as the SDK and RCRT write them,
 * so that a field nobody reads (a typo such as {@code langauge}) is found where users look: {@code
 * validate} and the command line's load of {@code --breadcrumbs} files. An unknown field is reported
 * with the nearest known one when one is within two edits. Fields named {@code comment} or ending
 * in {@code _comment} (RCRT's notes to readers) are never reported. Stateless.
 */
final class ContextFields {
  /** Every tool schema: ToolDefinition's fields in both spellings, and what RCRT's tools carry for its UI and sandbox. */
  private static final Set<String> TOOL = Set.of(
      "name", "description", "category", "version", "implementation", "definition", "code", "input_schema", "inputSchema",
      "output_schema", "outputSchema", "examples", "limits", "capabilities", "permissions", "required_secrets", "requires_approval",
      "timeout", "timeout_ms", "max_response_bytes", "ui_schema", "metadata", "author", "tags", "config", "bootstrap");

  /** A tool's inline {@code code} object. */
  private static final Set<String> CODE = Set.of("language", "source", "runtime", "entry", "dependencies");

  /** Agent definitions: the SDK's fields, the chat options it sends, and what RCRT's agents carry. */
  private static final Set<String> AGENT = Set.of(
      "agent_id", "name", "description", "model", "system_prompt", "is_primary", "enabled", "subscriptions", "llm_config_id",
      "tool_protocol", "tool_budget_tokens", "tool_categories", "temperature", "max_tokens", "top_p", "response_format", "seed",
      "stop", "tool_choice", "parallel_tool_calls", "capabilities", "context_sources", "ui_schema", "metadata", "version", "role",
      "tools", "history", "envelope", "llm_config");

  private static final LevenshteinDistance DISTANCE = new LevenshteinDistance(2);

  private ContextFields() {}

  /**
   * The unknown fields of {@code b}'s context, as {@code /context/FIELD: unknown field…} findings,
   * with the nearest known field where one is close; empty for a schema whose fields are not known
   * here.
   */
  static List<String> unknown(Breadcrumb b) {
    String schema = b.schemaName();
    List<String> found = new ArrayList<>();
    if (schema == null) {
      return found;
    }
    Set<String> known = ToolDefinition.TOOL_SCHEMAS.contains(schema) ? TOOL : AgentDefinition.SCHEMAS.contains(schema) ? AGENT : null;
    if (known == null) {
      return found;
    }
    check("/context", b.context(), known, schema, found);
    if (known == TOOL && b.context().path("code").isObject()) {
      check("/context/code", b.context().get("code"), CODE, schema + " code", found);
    }
    return found;
  }

  private static void check(String where, JsonNode object, Set<String> known, String what, List<String> found) {
    for (Iterator<String> names = object.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (known.contains(name) || name.equals("comment") || name.endsWith("_comment")) {
        continue;
      }
      String nearest = nearest(name, known);
      found.add(where + "/" + name + ": unknown field of " + what + ", which nothing reads"
          + (nearest == null ? "" : "; did you mean '" + nearest + "'?"));
    }
  }

  /** The known field within two edits of {@code name} (the closest, then the first in order), or null. */
  static @Nullable String nearest(String name, Set<String> known) {
    return known.stream()
        .map(k -> Map.entry(k, DISTANCE.apply(name, k)))
        .filter(e -> e.getValue() >= 0 && e.getValue() < Math.max(2, name.length() / 2))
        .min(Comparator.<Map.Entry<String, Integer>>comparingInt(Map.Entry::getValue).thenComparing(Map.Entry::getKey))
        .map(Map.Entry::getKey)
        .orElse(null);
  }
}
