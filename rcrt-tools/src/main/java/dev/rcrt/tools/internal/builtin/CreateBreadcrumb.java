package dev.rcrt.tools.internal.builtin;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolContext;
import dev.rcrt.tools.ToolHandler;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code breadcrumb-create}: {@code {schema_name, title, tags?, context?}} → {@code {id, version}},
 * written to the store the request came from. The store stamps it {@code created_by:
 * tool:breadcrumb-create}, and refuses tools, tool configs, agents and schema definitions unless the
 * trust policy trusts that writer.
 */
public final class CreateBreadcrumb implements ToolHandler {
  @Override
  public JsonNode execute(JsonNode input, ToolContext context) {
    List<String> tags = new ArrayList<>();
    input.path("tags").forEach(t -> tags.add(t.asText()));
    JsonNode body = input.get("context");
    Breadcrumb created =
        context
            .store()
            .create(
                BreadcrumbCreate.builder(input.path("schema_name").asText(), input.path("title").asText())
                    .tags(tags)
                    .context(body == null || body.isNull() ? RcrtJson.object() : body)
                    .build());
    return RcrtJson.object().put("id", created.id()).put("version", created.version());
  }
}
