package dev.rcrt.mcp.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbEvent;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.ContextView;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.core.Visibility;
import dev.rcrt.tools.ToolTrustPolicy;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's records as MCP resources, kept equal to the store:
 *
 * <ul>
 *   <li><b>Every readable record</b> through the templates {@code rcrt://breadcrumbs/{id}} (the
 *       record's view as JSON: id, title, schema, tags, version and its context as its {@code
 *       llm_hints} shape it), {@code rcrt://schemas/{schema_name}} and {@code rcrt://tags/{tag}}
 *       (the newest {@value #LIST_LIMIT} readable records of a schema or with a tag: their URIs and
 *       titles). Readable means: not secret ({@link Breadcrumb#isSecret()}: never, whatever asks),
 *       and {@code Public}, or {@code Team} where the host widened it ({@link #readable}).
 *   <li><b>Resource records</b> ({@value #SCHEMA}, written by a writer the trust policy trusts):
 *       a resource of their own URI, or a template of their own, with their own content: {@code
 *       {"uri" | "uri_template", "name", "description"?, "title"?, "mime_type"?, "text" | "blob"}}
 *       ({@code blob} in base64; in a template's {@code text}, each {@code {variable}} of the
 *       template is replaced by its value in the URI read). They are listed by {@code
 *       resources/list} and {@code resources/templates/list}; a change to one updates the lists.
 *   <li><b>Subscriptions</b>: a change to a record (from any process of a shared store) sends {@code
 *       notifications/resources/updated} for its {@code rcrt://breadcrumbs/} URI, and for its own URI
 *       if it is a resource record, to the sessions subscribed to that URI.
 * </ul>
 *
 * Thread-safe.
 */
public final class ResourceCatalog implements AutoCloseable {
  /** The schema of records that are MCP resources (or templates) of their own URI and content. */
  public static final String SCHEMA = "mcp.resource.v1";

  /** The URI of a record's resource is this prefix and the record's id. */
  public static final String RECORD_PREFIX = "rcrt://breadcrumbs/";

  /** The longest URI or URI template a resource record may have. */
  static final int MAX_URI_CHARS = 2048;

  /** The most records a schema or tag resource lists. */
  static final int LIST_LIMIT = 100;

  private static final Logger LOG = LoggerFactory.getLogger(ResourceCatalog.class);
  private static final String JSON = "application/json";
  private static final Pattern VARIABLE = Pattern.compile("\\{([A-Za-z0-9_]+)}");

  private final BreadcrumbStore store;
  private final ToolTrustPolicy policy;
  private final ContextView views;
  private final Visibility widest;
  /** The resource records offered: their URI or URI template, and the record id @ version they came from. */
  private final Map<String, String> offered = new HashMap<>();
  private final Map<String, Boolean> templates = new HashMap<>(); // offered key -> is a template
  private final List<Subscription> watching = new ArrayList<>();
  private @Nullable McpSyncServer server;

  /**
   * @param widest the widest visibility served: {@code PUBLIC}, or {@code TEAM} for team records too
   */
  public ResourceCatalog(BreadcrumbStore store, ToolTrustPolicy policy, Visibility widest) {
    this.store = store;
    this.policy = policy;
    this.widest = widest;
    this.views = ContextView.builder(store).lenient(true).build();
  }

  /** The URI templates every server offers, in {@link #builtinTemplates()}'s order. */
  public static final List<String> BUILTIN_TEMPLATES = List.of(RECORD_PREFIX + "{id}", "rcrt://schemas/{schema_name}", "rcrt://tags/{tag}");

  /** The templates every server offers: a record by id, the records of a schema, the records with a tag. */
  public List<McpServerFeatures.SyncResourceTemplateSpecification> builtinTemplates() {
    return List.of(
        template(BUILTIN_TEMPLATES.get(0), "breadcrumb", "A breadcrumb by id: its view as JSON (secret and private records are not served)",
            (uri, vars) -> recordContents(uri, vars.get("id"))),
        template(BUILTIN_TEMPLATES.get(1), "breadcrumbs of a schema",
            "The newest " + LIST_LIMIT + " readable breadcrumbs of a schema: their URIs and titles",
            (uri, vars) -> listing(uri, Selector.schema(vars.getOrDefault("schema_name", "")))),
        template(BUILTIN_TEMPLATES.get(2), "breadcrumbs with a tag", "The newest " + LIST_LIMIT + " readable breadcrumbs with a tag: their URIs and titles",
            (uri, vars) -> listing(uri, Selector.allTags(vars.getOrDefault("tag", "")))));
  }

  /** Follows the store from now on: resource records become resources, and changes notify subscribers. */
  public synchronized void attach(McpSyncServer server) {
    this.server = server;
    watching.add(store.subscribe(Selector.all(), this::changed));
    sync();
  }

  private void changed(BreadcrumbEvent event) {
    McpSyncServer s = server;
    if (s == null) {
      return;
    }
    Breadcrumb b = event.breadcrumb();
    if (SCHEMA.equals(b.schemaName())) {
      sync();
      String uri = b.contextText("uri");
      if (uri != null && policy.whyUntrusted(b) == null) { // an untrusted record's URI is not its own to announce
        s.notifyResourcesUpdated(new McpSchema.ResourcesUpdatedNotification(uri));
      }
    }
    if (readable(b)) { // a record no client may read is not announced either, not even that it changed
      s.notifyResourcesUpdated(new McpSchema.ResourcesUpdatedNotification(RECORD_PREFIX + b.id()));
    }
  }

  /** Re-reads the resource records and updates the server's lists where they differ. */
  public synchronized void sync() {
    McpSyncServer s = server;
    if (s == null) {
      return;
    }
    Map<String, Breadcrumb> now = new HashMap<>();
    for (Breadcrumb b : store.search(Selector.schema(SCHEMA), 1000, 0)) {
      String why = policy.whyUntrusted(b);
      if (why != null) {
        LOG.warn("resource record '{}' is not served over MCP: {}", b.id(), why);
        continue;
      }
      String key = b.contextText("uri") != null ? b.contextText("uri") : b.contextText("uri_template");
      if (key == null || b.contextText("name") == null) {
        LOG.warn("resource record '{}' is not served over MCP: it needs a 'uri' or a 'uri_template', and a 'name'", b.id());
        continue;
      }
      if (key.contains("}{") || key.length() > MAX_URI_CHARS) {
        // two variables side by side have no one reading of a URI, and their expressions match in polynomial time
        LOG.warn("resource record '{}' is not served over MCP: its URI template has two variables side by side or is over {} characters",
            b.id(), MAX_URI_CHARS);
        continue;
      }
      now.putIfAbsent(key, b);
    }
    for (String key : List.copyOf(offered.keySet())) {
      Breadcrumb b = now.get(key);
      if (b == null || !(b.id() + "@" + b.version()).equals(offered.get(key))) {
        if (Boolean.TRUE.equals(templates.remove(key))) {
          s.removeResourceTemplate(key);
        } else {
          s.removeResource(key);
        }
        offered.remove(key);
      }
    }
    for (Map.Entry<String, Breadcrumb> e : now.entrySet()) {
      if (offered.containsKey(e.getKey())) {
        continue;
      }
      Breadcrumb b = e.getValue();
      boolean template = b.contextText("uri") == null;
      if (template) {
        s.addResourceTemplate(template(e.getKey(), b.contextText("name"), b.contextText("description"),
            (uri, vars) -> ownContents(b, uri, vars)));
      } else {
        s.addResource(new McpServerFeatures.SyncResourceSpecification(
            McpSchema.Resource.builder().uri(e.getKey()).name(b.contextText("name")).title(b.contextText("title"))
                .description(b.contextText("description") != null ? b.contextText("description") : b.title())
                .mimeType(mimeType(b)).build(),
            (exchange, request) -> ownContents(b, request.uri(), Map.of())));
      }
      offered.put(e.getKey(), b.id() + "@" + b.version());
      templates.put(e.getKey(), template);
    }
  }

  /** What a resource record serves at {@code uri}: its text (with the template's variables put in) or its blob. */
  private static McpSchema.ReadResourceResult ownContents(Breadcrumb b, String uri, Map<String, String> vars) {
    JsonNode blob = b.context().get("blob");
    if (blob != null && blob.isTextual()) {
      return new McpSchema.ReadResourceResult(List.of(new McpSchema.BlobResourceContents(uri, mimeType(b), blob.asText())));
    }
    String text = b.contextText("text") != null ? b.contextText("text") : "";
    return new McpSchema.ReadResourceResult(List.of(new McpSchema.TextResourceContents(uri, mimeType(b), fill(text, vars))));
  }

  /** {@code text} with each {@code {name}} whose name {@code values} has replaced by its value; other braces stay. */
  static String fill(String text, Map<String, String> values) {
    Matcher m = VARIABLE.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String value = values.get(m.group(1));
      m.appendReplacement(out, Matcher.quoteReplacement(value != null ? value : m.group()));
    }
    m.appendTail(out);
    return out.toString();
  }

  private static String mimeType(Breadcrumb b) {
    String type = b.contextText("mime_type");
    return type != null ? type : b.context().has("blob") ? "application/octet-stream" : "text/plain";
  }

  /** A record's view as JSON, if it may be read. */
  private McpSchema.ReadResourceResult recordContents(String uri, @Nullable String id) {
    Breadcrumb b = id == null ? null : store.get(id).filter(this::readable).orElse(null);
    Optional<dev.rcrt.core.BreadcrumbView> view = b == null ? Optional.empty() : views.view(b);
    if (view.isEmpty()) {
      throw notFound(uri);
    }
    dev.rcrt.core.BreadcrumbView v = view.get();
    ObjectNode out = RcrtJson.object().put("id", v.id()).put("title", v.title()).put("schema_name", v.schemaName()).put("version", v.version());
    ArrayNode tags = out.putArray("tags");
    v.tags().forEach(tags::add);
    out.set("context", v.context());
    return new McpSchema.ReadResourceResult(List.of(new McpSchema.TextResourceContents(uri, JSON, RcrtJson.write(out))));
  }

  /** The URIs and titles of the newest readable records {@code selector} finds. */
  private McpSchema.ReadResourceResult listing(String uri, Selector selector) {
    ArrayNode items = RcrtJson.nodes().arrayNode();
    for (Breadcrumb b : store.search(selector, LIST_LIMIT, 0)) {
      if (readable(b)) {
        items.addObject().put("uri", RECORD_PREFIX + b.id()).put("title", b.title()).put("schema_name", b.schemaName());
      }
    }
    return new McpSchema.ReadResourceResult(List.of(new McpSchema.TextResourceContents(uri, JSON, RcrtJson.write(items))));
  }

  /** Whether MCP clients may read {@code b}: never a secret, never a private record, a team record only when the host said so. */
  boolean readable(Breadcrumb b) {
    Visibility v = b.visibility();
    return !b.isSecret() && (v == Visibility.PUBLIC || v == Visibility.TEAM && widest == Visibility.TEAM);
  }

  private static McpError notFound(String uri) {
    return McpError.builder(McpSchema.ErrorCodes.RESOURCE_NOT_FOUND).message("Resource not found: " + uri).data(java.util.Map.of("uri", uri)).build();
  }

  /** Reads a resource of a template from the URI asked for and the template's variables in it. */
  @FunctionalInterface
  private interface TemplateRead {
    McpSchema.ReadResourceResult read(String uri, Map<String, String> variables);
  }

  private static McpServerFeatures.SyncResourceTemplateSpecification template(
      String uriTemplate, @Nullable String name, @Nullable String description, TemplateRead read) {
    Pattern matching = matcherOf(uriTemplate);
    List<String> names = new ArrayList<>();
    Matcher v = VARIABLE.matcher(uriTemplate);
    while (v.find()) {
      names.add(v.group(1));
    }
    McpSchema.ResourceTemplate t = McpSchema.ResourceTemplate.builder().uriTemplate(uriTemplate).name(name).description(description).build();
    return new McpServerFeatures.SyncResourceTemplateSpecification(t, (exchange, request) -> {
      Matcher m = matching.matcher(request.uri());
      if (!m.matches()) {
        throw notFound(request.uri());
      }
      Map<String, String> vars = new HashMap<>();
      for (int i = 0; i < names.size(); i++) {
        vars.put(names.get(i), URLDecoder.decode(m.group(i + 1), StandardCharsets.UTF_8));
      }
      return read.read(request.uri(), vars);
    });
  }

  /** A regular expression matching the URIs of a level-1 URI template (RFC 6570): each variable one path segment or more text without '/'. */
  private static Pattern matcherOf(String uriTemplate) {
    StringBuilder regex = new StringBuilder();
    Matcher v = VARIABLE.matcher(uriTemplate);
    int at = 0;
    while (v.find()) {
      regex.append(Pattern.quote(uriTemplate.substring(at, v.start()))).append("([^/?#]+)");
      at = v.end();
    }
    regex.append(Pattern.quote(uriTemplate.substring(at)));
    return Pattern.compile(regex.toString());
  }

  @Override
  public synchronized void close() {
    watching.forEach(Subscription::close);
    watching.clear();
  }
}
