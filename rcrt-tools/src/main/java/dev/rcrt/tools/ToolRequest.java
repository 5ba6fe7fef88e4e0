package dev.rcrt.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.Principal;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import dev.rcrt.core.internal.Ids;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A request to run a tool: the context of an RCRT {@code tool.request.v1} breadcrumb, {@code {tool,
 * input, requestId, requestedBy}}, tagged {@code tool:request} and {@code workspace:tools}. When an
 * agent makes the request for an OpenAI tool call, {@code tool_call_id} is added at the end.
 *
 * @param requestId correlates the request with its {@code tool.response.v1}; also used as the
 *     request breadcrumb's id
 * @param tool the tool name
 * @param input the tool input (any JSON; validated by the runner)
 * @param requestedBy who asks, such as an agent id, or null
 * @param toolCallId the OpenAI {@code tool_call_id} this request answers, or null
 * @param round identifies the assistant message whose calls this request belongs to (written as
 *     {@code round}, so a conversation can be rebuilt), or null
 */
public record ToolRequest(
    String requestId,
    String tool,
    JsonNode input,
    @Nullable String requestedBy,
    @Nullable String toolCallId,
    @Nullable String round) {

  /** The schema name of request breadcrumbs. */
  public static final String SCHEMA = "tool.request.v1";

  /** Validates required fields. */
  public ToolRequest {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(tool, "tool");
    Objects.requireNonNull(input, "input");
  }

  /** A request with a new random request id and no tool call id. */
  public static ToolRequest of(String tool, JsonNode input, @Nullable String requestedBy) {
    return new ToolRequest(Ids.random(), tool, input, requestedBy, null, null);
  }

  /**
   * The breadcrumb to write for this request: id = request id, schema {@code tool.request.v1},
   * tags {@code tool:request}, {@code workspace:tools} and {@code extraTags} (for example the
   * session tag), {@code created_by} = {@code writer}'s wire form. With a {@code pinned} definition
   * the context ends with {@code tool_id} and {@code tool_version}, so that a listening runner runs
   * exactly that version of the tool or refuses.
   */
  public BreadcrumbCreate toBreadcrumb(List<String> extraTags, Principal writer, @Nullable ToolDefinition pinned) {
    ObjectNode context = RcrtJson.object();
    context.put("tool", tool);
    context.set("input", input);
    context.put("requestId", requestId);
    context.put("requestedBy", requestedBy);
    if (toolCallId != null) {
      context.put("tool_call_id", toolCallId);
    }
    if (round != null) {
      context.put("round", round);
    }
    if (pinned != null) {
      context.put("tool_id", pinned.sourceId());
      context.put("tool_version", pinned.sourceVersion());
    }
    List<String> tags = new ArrayList<>(List.of("tool:request", "workspace:tools"));
    tags.addAll(extraTags);
    return BreadcrumbCreate.builder(SCHEMA, "Tool request: " + tool)
        .id(requestId)
        .context(context)
        .tags(tags)
        .createdBy(writer.wire())
        .build();
  }

  /**
   * Reads a request from its breadcrumb. A missing {@code requestId} falls back to the breadcrumb
   * id; a missing {@code input} is an empty object.
   *
   * @throws ValidationException if the breadcrumb is not a {@code tool.request.v1} with a tool name
   */
  public static ToolRequest fromBreadcrumb(Breadcrumb breadcrumb) {
    if (!SCHEMA.equals(breadcrumb.schemaName())) {
      throw new ValidationException(
          "breadcrumb '" + breadcrumb.id() + "' is a " + breadcrumb.schemaName() + ", not a " + SCHEMA);
    }
    String tool = breadcrumb.contextText("tool");
    if (tool == null || tool.isBlank()) {
      throw new ValidationException(
          "tool request '" + breadcrumb.id() + "' context/tool: required, found none");
    }
    String requestId = breadcrumb.contextText("requestId");
    JsonNode input = breadcrumb.context().get("input");
    return new ToolRequest(
        requestId != null ? requestId : breadcrumb.id(),
        tool,
        input == null || input.isNull() ? RcrtJson.object() : input,
        breadcrumb.contextText("requestedBy"),
        breadcrumb.contextText("tool_call_id"),
        breadcrumb.contextText("round"));
  }
}
