package dev.rcrt.mcp.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.RcrtJson;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An MCP server's resources and prompts as the records {@code mcp serve} serves: {@code
 * mcp.resource.v1} (each resource read once, its text or blob kept) and {@code mcp.prompt.v1} (each
 * prompt got with every argument set to {@code {name}}, so that the record's substitution fills
 * them as the server would). Bounded: at most {@link #MAX_ITEMS} of each, a resource's contents
 * at most {@link #MAX_CONTENT} characters; what does not fit, or fails, is left out with a logged
 * warning. Ids are derived from the alias and the name or URI, so importing again updates in place.
 */
public final class CatalogImport {
  private static final Logger LOG = LoggerFactory.getLogger(CatalogImport.class);
  /** The most resources, or prompts, imported from one server. */
  public static final int MAX_ITEMS = 1000;
  /** The largest text or base64 blob kept for one resource, in characters. */
  public static final int MAX_CONTENT = 1 << 20;

  private CatalogImport() {}

  /** The records of {@code resources}, each read with {@code read}. */
  public static List<BreadcrumbCreate> resources(List<McpSchema.Resource> resources, Function<String, McpSchema.ReadResourceResult> read, String alias) {
    List<BreadcrumbCreate> out = new ArrayList<>();
    for (McpSchema.Resource r : resources.subList(0, Math.min(resources.size(), MAX_ITEMS))) {
      if (r.uri() == null || r.name() == null) {
        continue;
      }
      McpSchema.ReadResourceResult read1;
      try {
        read1 = read.apply(r.uri());
      } catch (RuntimeException e) {
        LOG.warn("MCP resource {} of '{}' not imported: {}", r.uri(), alias, e.getMessage());
        continue;
      }
      if (read1.contents() == null || read1.contents().isEmpty()) {
        continue;
      }
      ObjectNode context = RcrtJson.object().put("uri", r.uri()).put("name", r.name());
      putIf(context, "title", r.title());
      putIf(context, "description", r.description());
      McpSchema.ResourceContents first = read1.contents().get(0);
      putIf(context, "mime_type", first.mimeType() != null ? first.mimeType() : r.mimeType());
      String content = first instanceof McpSchema.TextResourceContents t ? t.text() : first instanceof McpSchema.BlobResourceContents b ? b.blob() : null;
      if (content == null || content.length() > MAX_CONTENT) {
        LOG.warn("MCP resource {} of '{}' not imported: its contents are {}", r.uri(), alias,
            content == null ? "of no known kind" : "larger than " + MAX_CONTENT + " characters");
        continue;
      }
      context.put(first instanceof McpSchema.BlobResourceContents ? "blob" : "text", content);
      out.add(BreadcrumbCreate.builder("mcp.resource.v1", r.title() != null ? r.title() : r.name())
          .id("mcp-" + alias + "-resource-" + digest(r.uri()))
          .tags("mcp-resource", "mcp:" + alias)
          .context(context)
          .build());
    }
    return out;
  }

  /** The records of {@code prompts}, each got with {@code get} and its arguments as placeholders. */
  public static List<BreadcrumbCreate> prompts(
      List<McpSchema.Prompt> prompts, BiFunction<String, Map<String, Object>, McpSchema.GetPromptResult> get, String alias) {
    List<BreadcrumbCreate> out = new ArrayList<>();
    for (McpSchema.Prompt p : prompts.subList(0, Math.min(prompts.size(), MAX_ITEMS))) {
      if (p.name() == null || !McpTools.nameAllowed(alias + "." + p.name())) {
        continue;
      }
      Map<String, Object> placeholders = new LinkedHashMap<>();
      ArrayNode arguments = RcrtJson.array();
      for (McpSchema.PromptArgument a : p.arguments() == null ? List.<McpSchema.PromptArgument>of() : p.arguments()) {
        placeholders.put(a.name(), "{" + a.name() + "}");
        ObjectNode arg = arguments.addObject().put("name", a.name()).put("required", Boolean.TRUE.equals(a.required()));
        putIf(arg, "description", a.description());
      }
      McpSchema.GetPromptResult got;
      try {
        got = get.apply(p.name(), placeholders);
      } catch (RuntimeException e) {
        LOG.warn("MCP prompt '{}' of '{}' not imported: {}", p.name(), alias, e.getMessage());
        continue;
      }
      ArrayNode messages = RcrtJson.array();
      boolean whole = true;
      for (McpSchema.PromptMessage m : got.messages()) {
        ObjectNode content = content(m.content());
        if (content == null) {
          whole = false;
          break;
        }
        messages.addObject().put("role", m.role() == McpSchema.Role.ASSISTANT ? "assistant" : "user").set("content", content);
      }
      if (!whole) {
        LOG.warn("MCP prompt '{}' of '{}' not imported: a message holds content other than text, an image or an embedded resource", p.name(), alias);
        continue;
      }
      ObjectNode context = RcrtJson.object().put("name", alias + "." + p.name());
      putIf(context, "title", p.title());
      context.put("description", p.description() != null ? p.description() : p.name());
      context.set("arguments", arguments);
      context.set("messages", messages);
      out.add(BreadcrumbCreate.builder("mcp.prompt.v1", p.title() != null ? p.title() : alias + "." + p.name())
          .id("mcp-" + alias + "-prompt-" + digest(p.name()))
          .tags("mcp-prompt", "mcp:" + alias)
          .context(context)
          .build());
    }
    return out;
  }

  /** A message's content in the record's form, or null for a kind it has none of. */
  private static @Nullable ObjectNode content(McpSchema.Content c) {
    if (c instanceof McpSchema.TextContent t) {
      return RcrtJson.object().put("type", "text").put("text", t.text());
    }
    if (c instanceof McpSchema.ImageContent i) {
      return RcrtJson.object().put("type", "image").put("data", i.data()).put("mime_type", i.mimeType());
    }
    if (c instanceof McpSchema.EmbeddedResource e) {
      ObjectNode r = RcrtJson.object().put("uri", e.resource().uri());
      putIf(r, "mime_type", e.resource().mimeType());
      if (e.resource() instanceof McpSchema.TextResourceContents t) {
        r.put("text", t.text());
      } else if (e.resource() instanceof McpSchema.BlobResourceContents b) {
        r.put("blob", b.blob());
      }
      ObjectNode out = RcrtJson.object().put("type", "resource");
      out.set("resource", r);
      return out;
    }
    return null;
  }

  private static void putIf(ObjectNode node, String field, @Nullable String value) {
    if (value != null) {
      node.put(field, value);
    }
  }

  private static String digest(String text) {
    return dev.rcrt.core.spi.ContentDigest.sha256Hex(text).substring(0, 16);
  }
}
