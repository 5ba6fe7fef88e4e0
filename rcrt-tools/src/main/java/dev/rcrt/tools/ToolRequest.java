package dev.rcrt.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.Principal;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import dev.rcrt.core.spi.Ids;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A request to run a tool: the context of an RCRT {@code tool.request.v1} breadcrumb, {@code {tool,
 * input, requestId, requestedBy}}, tagged {@code tool:request} and {@code workspace:tools}. When an
 * agent makes the request for an OpenAI tool call, the call's {@code tool_call_id}, {@code
 * function_name} and {@code round} are added at the end.
 *
 * @param requestId correlates the request with its {@code tool.response.v1}; also used as the
 *     request breadcrumb's id
 * @param tool the tool name
 * @param input the tool input (any JSON; validated by the runner)
 * @param requestedBy who asks, such as an agent id, or null
 * @param modelCall the model's tool call this request carries out, or null for a request made by
 *     anyone else (a host, a tool, the CLI)
 */
public record ToolRequest(
    String requestId,
    String tool,
    JsonNode input,
    @Nullable String requestedBy,
    @Nullable ModelCall modelCall) {

  /**
   * The OpenAI tool call a request carries out, recorded so that a conversation can be replayed to
   * the provider exactly as it saw it.
   *
   * @param toolCallId the OpenAI {@code tool_call_id}
   * @param functionName the function name the model called (the tool's name made safe for {@code
   *     ^[a-zA-Z0-9_-]{1,64}$}, such as {@code unit_convert} for {@code unit.convert})
   * @param round identifies the assistant message whose calls the request belongs to
   */
  public record ModelCall(String toolCallId, String functionName, String round) {
    /** Validates required fields. */
    public ModelCall {
      Objects.requireNonNull(toolCallId, "toolCallId");
      Objects.requireNonNull(functionName, "functionName");
      Objects.requireNonNull(round, "round");
    }
  }

  /** The schema name of request breadcrumbs. */
  public static final String SCHEMA = "tool.request.v1";

  /**
   * The {@link dev.rcrt.core.WorkClaims} key under which request {@code requestId} is run, {@code
   * tool.request:<id>}: the key a listening runner claims before it runs a request, and an agent
   * before it runs a call in process, so that one call is never under way in two places.
   */
  public static String claimKey(String requestId) {
    return "tool.request:" + requestId;
  }

  /** Validates required fields. */
  public ToolRequest {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(tool, "tool");
    Objects.requireNonNull(input, "input");
  }

  /** A request with a new random request id and no tool call id. */
  public static ToolRequest of(String tool, JsonNode input, @Nullable String requestedBy) {
    return new ToolRequest(Ids.random(), tool, input, requestedBy, null);
  }

  /** This request with {@code input} instead of its own; everything else, the id included, kept. */
  public ToolRequest withInput(JsonNode input) {
    return new ToolRequest(requestId, tool, input, requestedBy, modelCall);
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
    if (modelCall != null) {
      context.put("tool_call_id", modelCall.toolCallId());
      context.put("function_name", modelCall.functionName());
      context.put("round", modelCall.round());
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
        modelCall(breadcrumb, requestId != null ? requestId : breadcrumb.id(), tool));
  }

  /**
   * The model call a stored request carries out. Records written before {@code function_name} was
   * recorded replay the tool name; a missing {@code round} is the request's own.
   */
  private static @Nullable ModelCall modelCall(Breadcrumb b, String requestId, String tool) {
    String callId = b.contextText("tool_call_id");
    if (callId == null) {
      return null;
    }
    String function = b.contextText("function_name");
    String round = b.contextText("round");
    return new ModelCall(callId, function != null ? function : tool, round != null ? round : requestId);
  }
}
