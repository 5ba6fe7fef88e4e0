package dev.rcrt.tools.internal.builtin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.VectorSearch;
import dev.rcrt.tools.ToolContext;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolHandler;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code breadcrumb-search}: {@code {schema_name?, tag?, tags?, limit = 10, query?, nn = 5,
 * wait_ms = 5000}} → {@code {breadcrumbs: [{id, title, schema_name, tags, version, updated_at,
 * context}], count, method, complete?, not_indexed?}}, on the store the request came from. Without
 * {@code query} ({@code method: "filter"}): newest first, {@code tags} all present. With it ({@code
 * method: "vector"}): the store's {@link VectorSearch}, nearest first ({@code nn} 1 to 50, as its
 * input schema says), or {@code tool_failed} when the store has none. A search by meaning first
 * waits, at most {@code wait_ms} (0 to 60,000), for the records written before it to be indexed,
 * and says whether they were: {@code complete: false} with {@code not_indexed}, how many records
 * still wait, when the answer comes from part of the store. The context of a breadcrumb with
 * sensitivity {@code secret} is never returned.
 */
public final class SearchBreadcrumbs implements ToolHandler {
  private static final int MAX_NN = 50;
  /** How long a search by meaning waits for the index unless the input says: a few seconds, what a model loading in a short process takes. */
  private static final long INDEX_WAIT_MS = 5_000;
  private static final long MAX_WAIT_MS = 60_000;

  @Override
  public JsonNode execute(JsonNode input, ToolContext context) {
    List<String> all = new ArrayList<>();
    if (input.hasNonNull("tag")) {
      all.add(input.get("tag").asText());
    }
    input.path("tags").forEach(t -> all.add(t.asText()));
    String schema = input.hasNonNull("schema_name") ? input.get("schema_name").asText() : null;
    Selector selector = new Selector(List.of(), all, schema, List.of());
    int limit = input.path("limit").asInt(10);
    String query = input.path("query").asText("");
    List<Breadcrumb> results;
    boolean complete = true;
    long notIndexed = 0;
    if (query.isBlank()) {
      results = context.store().search(selector, limit, 0);
    } else {
      VectorSearch vectors =
          context.store().vectorSearch().orElseThrow(() -> new ToolException(
              ToolErrorCode.TOOL_FAILED,
              "breadcrumb-search: this store has no vector search, so 'query' cannot be answered; search by schema_name and"
                  + " tag instead"));
      int nn = Math.max(1, Math.min(input.path("nn").asInt(5), MAX_NN));
      long waitMs = Math.max(0, Math.min(input.path("wait_ms").asLong(INDEX_WAIT_MS), MAX_WAIT_MS));
      try {
        complete = vectors.awaitIndexed(java.time.Duration.ofMillis(waitMs));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ToolException(ToolErrorCode.TOOL_FAILED, "breadcrumb-search: interrupted while waiting for the index");
      }
      results = vectors.nearest(query, nn, selector);
      notIndexed = complete ? 0 : vectors.pending();
    }

    ArrayNode found = RcrtJson.array();
    for (Breadcrumb b : results) {
      ObjectNode item = found.addObject();
      item.put("id", b.id());
      item.put("title", b.title());
      item.put("schema_name", b.schemaName());
      item.set("tags", RcrtJson.toTree(b.tags()));
      item.put("version", b.version());
      item.put("updated_at", b.updatedAt().toString());
      if (!b.isSecret()) { // Breadcrumb#isSecret: the one definition of a secret record
        item.set("context", b.context());
      }
    }
    ObjectNode out = RcrtJson.object();
    out.set("breadcrumbs", found);
    out.put("count", found.size());
    out.put("method", query.isBlank() ? "filter" : "vector");
    if (!query.isBlank()) {
      out.put("complete", complete);
      if (!complete) {
        out.put("not_indexed", notIndexed);
      }
    }
    return out;
  }
}
