package dev.rcrt.agent.internal.loop;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.agent.internal.prompt.ToolText;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.BreadcrumbView;
import dev.rcrt.core.ContextView;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.tools.ToolDefinition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The design's direct-discovery context: an agent's {@code context_sources: {always: [{type:
 * "schema", schema_name, method: "all"|"latest"|"recent", limit}]}} fetched straight from the store,
 * each breadcrumb shaped by its {@code llm_hints} view, and formatted as titled sections, tools
 * first ({@code === TOOLS ===}), the other schemas in the order the agent lists them.
 *
 * <p>{@code all} takes the newest {@code limit} (default 50) records of the schema; {@code latest}
 * the newest one; {@code recent} the newest {@code limit} (default 10) of the trigger's session.
 * Tool records are rendered like the tool prompt, from what their view keeps; other records as
 * {@code - title: <view JSON>}. Secret records never appear.
 */
public final class ContextSources {
  private ContextSources() {}

  /**
   * The sections for {@code agentContext.context_sources.always}, or empty when there are none.
   */
  public static Optional<String> build(BreadcrumbStore store, ContextView views, JsonNode agentContext, String session) {
    JsonNode always = agentContext.path("context_sources").path("always");
    if (!always.isArray() || always.isEmpty()) {
      return Optional.empty();
    }
    Map<String, List<BreadcrumbView>> bySchema = new LinkedHashMap<>();
    for (JsonNode source : always) {
      if (!"schema".equals(source.path("type").asText("schema")) || !source.hasNonNull("schema_name")) {
        continue;
      }
      String schema = source.get("schema_name").asText();
      String method = source.path("method").asText("all").toLowerCase(Locale.ROOT);
      Selector selector = Selector.schema(schema);
      int limit = source.path("limit").asInt(method.equals("recent") ? 10 : 50);
      if (method.equals("latest")) {
        limit = 1;
      } else if (method.equals("recent")) {
        selector = selector.withAllTags("session:" + session);
      }
      List<BreadcrumbView> shown = bySchema.computeIfAbsent(schema, s -> new ArrayList<>());
      for (Breadcrumb b : store.search(selector, Math.max(1, limit), 0)) {
        views.view(b).ifPresent(shown::add);
      }
    }
    List<Map.Entry<String, List<BreadcrumbView>>> ordered = new ArrayList<>(bySchema.entrySet());
    ordered.sort(Comparator.comparingInt(e -> ToolDefinition.isToolSchema(e.getKey()) ? 0 : 1));
    StringBuilder out = new StringBuilder();
    boolean toolsHeader = false;
    for (Map.Entry<String, List<BreadcrumbView>> e : ordered) {
      if (e.getValue().isEmpty()) {
        continue;
      }
      boolean tools = ToolDefinition.isToolSchema(e.getKey());
      if (!tools || !toolsHeader) {
        out.append(out.length() == 0 ? "" : "\n").append("=== ").append(tools ? "TOOLS" : e.getKey().toUpperCase(Locale.ROOT)).append(" ===\n\n");
        toolsHeader |= tools;
      }
      for (BreadcrumbView v : e.getValue()) {
        if (tools) {
          out.append(ToolText.ofView(v.context())).append('\n');
        } else {
          out.append("- ").append(v.title()).append(": ").append(RcrtJson.write(v.context())).append('\n');
        }
      }
    }
    return out.length() == 0 ? Optional.empty() : Optional.of(out.toString());
  }
}
