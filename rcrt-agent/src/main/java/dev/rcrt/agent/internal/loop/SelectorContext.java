package dev.rcrt.agent.internal.loop;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.ContextView;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.ValidationException;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * RCRT's context selectors: the agent's {@code subscriptions.selectors} with {@code role:
 * "context"} supply data rather than start turns. Each is fetched as its {@code fetch: {method,
 * limit}} says ({@code event_data} and {@code latest}: the newest record; {@code recent}: the newest
 * {@code limit}, default 10; {@code vector}: the {@code limit} (default 5) nearest to the user's
 * message by the store's vector search, else the newest) and put in the prompt under its {@code
 * key} as {@code === KEY ===}, each record shaped by its {@code llm_hints} view. Secret records
 * never appear.
 */
final class SelectorContext {
  private static final Logger LOG = LoggerFactory.getLogger(SelectorContext.class);

  private SelectorContext() {}

  /** The sections, or empty when the agent has no context selectors or they find nothing. */
  static String build(BreadcrumbStore store, ContextView views, JsonNode agentContext, String question) {
    StringBuilder out = new StringBuilder();
    int i = 0;
    for (JsonNode json : agentContext.path("subscriptions").path("selectors")) {
      i++;
      if (!"context".equals(json.path("role").asText())) {
        continue;
      }
      Selector selector;
      try {
        selector = Selector.fromJson(json);
      } catch (ValidationException e) {
        LOG.warn("context selector {} skipped: {}", i, e.getMessage());
        continue;
      }
      String method = json.path("fetch").path("method").asText("latest").toLowerCase(Locale.ROOT);
      int limit = Math.max(1, Math.min(json.path("fetch").path("limit").asInt(method.equals("vector") ? 5 : 10), 100));
      List<Breadcrumb> found =
          switch (method) {
            case "recent" -> store.search(selector, limit, 0);
            case "vector" -> store.vectorSearch().map(v -> v.nearest(question, limit, selector)).orElseGet(() -> store.search(selector, limit, 0));
            default -> store.search(selector, 1, 0);
          };
      StringBuilder section = new StringBuilder();
      for (Breadcrumb b : found) {
        views.view(b).ifPresent(v -> section.append("- ").append(v.title()).append(": ").append(RcrtJson.write(v.context())).append('\n'));
      }
      if (!section.isEmpty()) {
        String key = json.path("key").asText(json.path("schema_name").asText("context"));
        out.append("=== ").append(key.toUpperCase(Locale.ROOT)).append(" ===\n\n").append(section).append('\n');
      }
    }
    return out.toString();
  }
}
