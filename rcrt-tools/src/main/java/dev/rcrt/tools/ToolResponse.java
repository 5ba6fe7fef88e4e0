package dev.rcrt.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import dev.rcrt.core.spi.Records;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The outcome of a tool run: the context of an RCRT {@code tool.response.v1} breadcrumb, {@code
 * {request_id, tool, status: "success"|"error", output | error, execution_time_ms}}, tagged {@code
 * tool:response}, {@code request:<request_id>} and {@code workspace:tools} (RCRT's agents continue on
 * it). Error responses add {@code error_code} (a {@link ToolException} code); the record adds
 * RCRT's {@code timestamp}.
 *
 * @param requestId the request this answers
 * @param tool the tool name
 * @param success true for {@code status: "success"}
 * @param output the tool output when successful, else null
 * @param error the error message when failed, else null; never contains a secret value
 * @param errorCode the {@link ToolException} code when failed, else null
 * @param executionTimeMs how long the call took, in milliseconds of the runner's {@code TimeSource}
 */
public record ToolResponse(
    String requestId,
    String tool,
    boolean success,
    @Nullable JsonNode output,
    @Nullable String error,
    @Nullable String errorCode,
    long executionTimeMs) {

  /** The schema name of response breadcrumbs. */
  public static final String SCHEMA = "tool.response.v1";

  /** Validates that success has an output and failure an error. */
  public ToolResponse {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(tool, "tool");
    if (success) {
      Objects.requireNonNull(output, "output");
    } else {
      Objects.requireNonNull(error, "error");
    }
  }

  /**
   * The output of a successful response.
   *
   * @throws IllegalStateException for an error response, naming its error
   */
  public JsonNode requireOutput() {
    if (output == null) {
      throw new IllegalStateException("tool '" + tool + "' failed, so it has no output: " + error);
    }
    return output;
  }

  /** A successful response. */
  public static ToolResponse success(String requestId, String tool, JsonNode output, long ms) {
    return new ToolResponse(requestId, tool, true, output, null, null, ms);
  }

  /** A failed response carrying the exception's message and code. */
  public static ToolResponse failure(String requestId, String tool, ToolException e, long ms) {
    return new ToolResponse(requestId, tool, false, null, e.getMessage(), e.code(), ms);
  }

  /** The wire context: {@code {request_id, tool, status, output | error, execution_time_ms}}. */
  public ObjectNode toContext() {
    ObjectNode c = RcrtJson.object();
    c.put("request_id", requestId);
    c.put("tool", tool);
    c.put("status", success ? "success" : "error");
    if (success) {
      c.set("output", output);
    } else {
      c.put("error", error);
    }
    c.put("execution_time_ms", executionTimeMs);
    if (errorCode != null) {
      c.put("error_code", errorCode);
    }
    return c;
  }

  /** Responses are created with the idempotency key {@code tool.response.v1:<request_id>}. */
  public static final String IDEMPOTENCY_PREFIX = SCHEMA + ":";

  /**
   * The breadcrumb to write: tags {@code tool:response}, {@code request:<id>}, {@code
   * workspace:tools} and {@code extraTags}, the context with RCRT's {@code timestamp} (the wall
   * clock now), and the idempotency key {@link #IDEMPOTENCY_PREFIX}{@code <request_id>}, so a
   * second write for the same request (a runner that lost its lease) stores nothing.
   */
  public BreadcrumbCreate toBreadcrumb(List<String> extraTags, @Nullable String writer) {
    List<String> tags = new ArrayList<>(List.of("tool:response", "request:" + requestId, "workspace:tools"));
    tags.addAll(extraTags);
    return BreadcrumbCreate.builder(SCHEMA, "Tool response: " + tool + (success ? "" : " (error)"))
        .context(toContext().put("timestamp", Records.timestamp()))
        .tags(tags)
        .createdBy(writer)
        .idempotencyKey(IDEMPOTENCY_PREFIX + requestId) // one response per request, whichever runner writes first
        .build();
  }

  /**
   * Whether {@code response} answers its request: written by a runner (the host's runtime), which
   * {@code policy} trusts to write responses, never by a tool (a tool can write a {@code
   * tool.response.v1}, but it is stamped {@code tool:<name>} and answers nothing).
   */
  public static boolean writtenByARunner(Breadcrumb response, ToolTrustPolicy policy) {
    dev.rcrt.core.Principal writer = dev.rcrt.core.Principal.writerOf(response);
    return writer.kind() != dev.rcrt.core.Principal.Kind.TOOL && policy.trusts(writer, SCHEMA);
  }

  /**
   * Reads a response from its breadcrumb.
   *
   * @throws ValidationException if it is not a {@code tool.response.v1} of the RCRT shape
   */
  public static ToolResponse fromBreadcrumb(Breadcrumb breadcrumb) {
    if (!SCHEMA.equals(breadcrumb.schemaName())) {
      throw new ValidationException(
          "breadcrumb '" + breadcrumb.id() + "' is a " + breadcrumb.schemaName() + ", not a " + SCHEMA);
    }
    String requestId = breadcrumb.contextText("request_id");
    String tool = breadcrumb.contextText("tool");
    String status = breadcrumb.contextText("status");
    if (requestId == null || tool == null || status == null) {
      throw new ValidationException(
          "tool response '" + breadcrumb.id() + "': request_id, tool and status are required");
    }
    boolean success = "success".equals(status);
    JsonNode output = breadcrumb.context().get("output");
    String error = breadcrumb.contextText("error");
    JsonNode ms = breadcrumb.context().get("execution_time_ms");
    return new ToolResponse(
        requestId,
        tool,
        success,
        success ? (output == null ? RcrtJson.nodes().nullNode() : output) : null,
        success ? null : (error == null ? "unknown error" : error),
        breadcrumb.contextText("error_code"),
        ms == null ? 0 : ms.asLong());
  }
}
