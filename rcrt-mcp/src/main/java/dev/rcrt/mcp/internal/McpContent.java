package dev.rcrt.mcp.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * How a tool's output becomes MCP content blocks, the same for every runtime (JavaScript, {@code
 * @Tool} methods, HTTP, containers): an output object whose {@code content} is an array of blocks
 * shaped as MCP's ({@code {"type": "text", "text"}}, {@code {"type": "image" | "audio", "data",
 * "mimeType"}} with base64 data, {@code {"type": "resource", "resource": {"uri", "mimeType",
 * "text" | "blob"}}}, {@code {"type": "resource_link", "uri", "name", "description"?,
 * "mimeType"?}}; {@code mime_type} is accepted for {@code mimeType}) is sent as those blocks, in
 * order. Any other output is one text block (the string, or the output as JSON). Either way an
 * object output is also the result's {@code structuredContent}.
 */
final class McpContent {
  private McpContent() {}

  /** The blocks {@code output} names, or empty when it is not a content output (or one block is not a known shape). */
  static Optional<List<McpSchema.Content>> of(JsonNode output) {
    JsonNode blocks = output.path("content");
    if (!output.isObject() || !blocks.isArray() || blocks.isEmpty()) {
      return Optional.empty();
    }
    List<McpSchema.Content> out = new ArrayList<>();
    for (JsonNode b : blocks) {
      McpSchema.Content c = block(b);
      if (c == null) {
        return Optional.empty();
      }
      out.add(c);
    }
    return Optional.of(out);
  }

  private static McpSchema.@Nullable Content block(JsonNode b) {
    String type = b.path("type").asText("");
    return switch (type) {
      case "text" -> b.path("text").isTextual() ? new McpSchema.TextContent(b.path("text").asText()) : null;
      case "image" -> data(b) == null ? null : new McpSchema.ImageContent(null, data(b), mimeType(b, "image/png"));
      case "audio" -> data(b) == null ? null : new McpSchema.AudioContent(null, data(b), mimeType(b, "audio/wav"));
      case "resource" -> resource(b.path("resource"));
      case "resource_link" -> b.path("uri").isTextual() && b.path("name").isTextual()
          ? McpSchema.ResourceLink.builder().uri(b.path("uri").asText()).name(b.path("name").asText())
              .description(text(b, "description")).mimeType(text(b, "mimeType") != null ? text(b, "mimeType") : text(b, "mime_type")).build()
          : null;
      default -> null;
    };
  }

  private static McpSchema.@Nullable Content resource(JsonNode r) {
    if (!r.path("uri").isTextual()) {
      return null;
    }
    String uri = r.path("uri").asText();
    if (r.path("blob").isTextual()) {
      return new McpSchema.EmbeddedResource(null, new McpSchema.BlobResourceContents(uri, mimeType(r, "application/octet-stream"), r.path("blob").asText()));
    }
    return r.path("text").isTextual()
        ? new McpSchema.EmbeddedResource(null, new McpSchema.TextResourceContents(uri, mimeType(r, "text/plain"), r.path("text").asText()))
        : null;
  }

  private static @Nullable String data(JsonNode b) {
    return text(b, "data");
  }

  private static String mimeType(JsonNode b, String otherwise) {
    String t = text(b, "mimeType");
    if (t == null) {
      t = text(b, "mime_type");
    }
    return t != null ? t : otherwise;
  }

  private static @Nullable String text(JsonNode b, String field) {
    JsonNode v = b.get(field);
    return v != null && v.isTextual() ? v.asText() : null;
  }
}
