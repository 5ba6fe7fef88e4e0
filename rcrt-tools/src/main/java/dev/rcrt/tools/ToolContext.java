package dev.rcrt.tools;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.BreadcrumbStore;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a running tool knows about its invocation: RCRT's {@code context} argument {@code {request,
 * api, secrets}} for Java tools.
 *
 * @param requestId the {@code tool.request.v1} request id; the response carries it as {@code
 *     request_id}
 * @param tool the tool's name
 * @param requestedBy who asked (an agent id), or null
 * @param store the store the request came from; tools such as {@code breadcrumb-search} act on it
 * @param config the tool's configuration object from its {@code tool.config.v1} breadcrumb, or an
 *     empty object
 */
public record ToolContext(
    String requestId,
    String tool,
    @Nullable String requestedBy,
    BreadcrumbStore store,
    JsonNode config) {

  /** Validates required fields. */
  public ToolContext {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(tool, "tool");
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(config, "config");
  }
}
