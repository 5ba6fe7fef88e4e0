package dev.rcrt.mcp.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.tools.ToolTrustPolicy;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's prompts, kept equal to the store, and argument completion:
 *
 * <ul>
 *   <li><b>Prompt records</b> ({@value #SCHEMA}): {@code {"name", "title"?, "description",
 *       "arguments"?: [{"name", "description"?, "required"?, "values"?}], "messages": [{"role":
 *       "user" | "assistant", "content": {"type": "text", "text"} | {"type": "image", "data",
 *       "mime_type"} | {"type": "resource", "resource": {"uri", "mime_type"?, "text" | "blob"}}}]}};
 *       each {@code {argument}} in a text or a resource's URI or text is replaced by its value.
 *   <li><b>Agents</b> ({@code agent.def.v1}, {@code agent.definition.v1}): each enabled agent is a
 *       prompt named by its {@code agent_id}, with one required argument {@code message}: one user
 *       message, the agent's system prompt and then the message.
 * </ul>
 *
 * Only records whose writer the trust policy trusts are served, as for tools. {@code
 * completion/complete} completes a prompt argument from its {@code values}, and the variables of
 * the resource templates from the store (ids, schema names, tags of recent records).
 * Completions are registered when the server is built (the SDK takes them then): a prompt record
 * created later is served at once but completes nothing until the server restarts. Thread-safe.
 */
public final class PromptCatalog implements AutoCloseable {
  /** The schema of records that are MCP prompts. */
  public static final String SCHEMA = "mcp.prompt.v1";

  private static final List<String> AGENT_SCHEMAS = List.of("agent.def.v1", "agent.definition.v1");
  private static final Logger LOG = LoggerFactory.getLogger(PromptCatalog.class);
  /** The most completion values returned, and the most recent records looked at for template variables. */
  private static final int MAX_VALUES = 100;
  private static final int SCAN = 500;

  private final BreadcrumbStore store;
  private final ToolTrustPolicy policy;
  private final ResourceCatalog resources;
  private final Map<String, String> offered = new HashMap<>(); // prompt name -> record id @ version
  private final List<Subscription> watching = new ArrayList<>();
  private @Nullable McpSyncServer server;

  /** @param resources decides which records' ids, schemas and tags completion may show */
  public PromptCatalog(BreadcrumbStore store, ToolTrustPolicy policy, ResourceCatalog resources) {
    this.store = store;
    this.policy = policy;
    this.resources = resources;
  }

  /** The prompts to build the server with. */
  public synchronized List<McpServerFeatures.SyncPromptSpecification> initial() {
    List<McpServerFeatures.SyncPromptSpecification> specs = new ArrayList<>();
    current().forEach((name, b) -> {
      specs.add(spec(name, b));
      offered.put(name, b.id() + "@" + b.version());
    });
    return specs;
  }

  /** Completions for the prompts of {@link #initial()} and for {@code templates} (URI templates). */
  public synchronized List<McpServerFeatures.SyncCompletionSpecification> completions(List<String> templates) {
    List<McpServerFeatures.SyncCompletionSpecification> specs = new ArrayList<>();
    current().forEach((name, b) -> specs.add(new McpServerFeatures.SyncCompletionSpecification(
        new McpSchema.PromptReference(name), (exchange, request) -> promptCompletion(name, request.argument()))));
    for (String template : templates) {
      specs.add(new McpServerFeatures.SyncCompletionSpecification(
          new McpSchema.ResourceReference(template), (exchange, request) -> templateCompletion(request.argument())));
    }
    return specs;
  }

  /** Follows the store from now on: a change to a prompt or agent record updates the server's list. */
  public synchronized void attach(McpSyncServer server) {
    this.server = server;
    watching.add(store.subscribe(Selector.schema(SCHEMA), e -> sync()));
    for (String schema : AGENT_SCHEMAS) {
      watching.add(store.subscribe(Selector.schema(schema), e -> sync()));
    }
    sync();
  }

  /** Re-reads the prompt and agent records and updates the server's list where it differs. */
  public synchronized void sync() {
    McpSyncServer s = server;
    if (s == null) {
      return;
    }
    Map<String, Breadcrumb> now = current();
    for (String name : List.copyOf(offered.keySet())) {
      Breadcrumb b = now.get(name);
      if (b == null || !(b.id() + "@" + b.version()).equals(offered.get(name))) {
        s.removePrompt(name);
        offered.remove(name);
      }
    }
    now.forEach((name, b) -> {
      if (!offered.containsKey(name)) {
        s.addPrompt(spec(name, b));
        offered.put(name, b.id() + "@" + b.version());
      }
    });
  }

  /** The trusted prompt records and enabled agents, by prompt name (a prompt record wins over an agent of the same name). */
  private Map<String, Breadcrumb> current() {
    Map<String, Breadcrumb> now = new LinkedHashMap<>();
    for (String schema : AGENT_SCHEMAS) {
      for (Breadcrumb b : trusted(schema)) {
        String id = b.contextText("agent_id");
        if (id != null && McpTools.nameAllowed(id) && !"false".equals(b.contextText("enabled"))) {
          now.putIfAbsent(id, b);
        }
      }
    }
    for (Breadcrumb b : trusted(SCHEMA)) {
      String name = b.contextText("name");
      if (name == null || !McpTools.nameAllowed(name) || !b.context().path("messages").isArray()) {
        LOG.warn("prompt record '{}' is not served over MCP: it needs a 'name' (1 to 128 of A-Z a-z 0-9 _ - .) and 'messages'", b.id());
        continue;
      }
      now.put(name, b);
    }
    return now;
  }

  private List<Breadcrumb> trusted(String schema) {
    List<Breadcrumb> out = new ArrayList<>();
    for (Breadcrumb b : store.search(Selector.schema(schema), 1000, 0)) {
      String why = policy.whyUntrusted(b);
      if (why == null) {
        out.add(b);
      } else {
        LOG.warn("record '{}' ({}) is not served as an MCP prompt: {}", b.id(), schema, why);
      }
    }
    return out;
  }

  private static boolean isAgent(Breadcrumb b) {
    return AGENT_SCHEMAS.contains(b.schemaName());
  }

  private static McpServerFeatures.SyncPromptSpecification spec(String name, Breadcrumb b) {
    List<McpSchema.PromptArgument> arguments = new ArrayList<>();
    String description;
    if (isAgent(b)) {
      arguments.add(new McpSchema.PromptArgument("message", "What to ask the agent", true));
      description = b.contextText("description") != null ? b.contextText("description") : "Agent " + name + ": " + b.title();
    } else {
      for (JsonNode a : b.context().path("arguments")) {
        arguments.add(new McpSchema.PromptArgument(a.path("name").asText(), text(a, "description"), a.path("required").asBoolean(false)));
      }
      description = b.contextText("description") != null ? b.contextText("description") : b.title();
    }
    McpSchema.Prompt prompt = new McpSchema.Prompt(name, b.contextText("title"), description, arguments);
    return new McpServerFeatures.SyncPromptSpecification(prompt, (exchange, request) -> messages(b, prompt, request.arguments()));
  }

  /** The prompt's messages with the arguments put in; a required argument missing is {@code -32602}. */
  private static McpSchema.GetPromptResult messages(Breadcrumb b, McpSchema.Prompt prompt, @Nullable Map<String, Object> given) {
    Map<String, String> args = new HashMap<>();
    if (given != null) {
      given.forEach((k, v) -> args.put(k, String.valueOf(v)));
    }
    for (McpSchema.PromptArgument a : prompt.arguments()) {
      if (Boolean.TRUE.equals(a.required()) && !args.containsKey(a.name())) {
        throw McpError.builder(McpSchema.ErrorCodes.INVALID_PARAMS).message("prompt '" + prompt.name() + "' needs the argument '" + a.name() + "'").build();
      }
    }
    List<McpSchema.PromptMessage> out = new ArrayList<>();
    if (isAgent(b)) {
      String system = b.contextText("system_prompt");
      String text = (system == null || system.isBlank() ? "" : system + "\n\n") + args.getOrDefault("message", "");
      out.add(new McpSchema.PromptMessage(McpSchema.Role.USER, new McpSchema.TextContent(text)));
      return new McpSchema.GetPromptResult(prompt.description(), out);
    }
    for (JsonNode m : b.context().path("messages")) {
      McpSchema.Role role = "assistant".equals(m.path("role").asText()) ? McpSchema.Role.ASSISTANT : McpSchema.Role.USER;
      out.add(new McpSchema.PromptMessage(role, content(m.path("content"), args)));
    }
    return new McpSchema.GetPromptResult(prompt.description(), out);
  }

  private static McpSchema.Content content(JsonNode c, Map<String, String> args) {
    switch (c.path("type").asText("text")) {
      case "image":
        return new McpSchema.ImageContent(null, c.path("data").asText(), c.path("mime_type").asText("image/png"));
      case "resource": {
        JsonNode r = c.path("resource");
        String uri = ResourceCatalog.fill(r.path("uri").asText(), args);
        String type = r.path("mime_type").asText("text/plain");
        McpSchema.ResourceContents contents = r.hasNonNull("blob")
            ? new McpSchema.BlobResourceContents(uri, type, r.path("blob").asText())
            : new McpSchema.TextResourceContents(uri, type, ResourceCatalog.fill(r.path("text").asText(), args));
        return new McpSchema.EmbeddedResource(null, contents);
      }
      default:
        return new McpSchema.TextContent(ResourceCatalog.fill(c.path("text").asText(), args));
    }
  }

  private static @Nullable String text(JsonNode node, String field) {
    JsonNode v = node.get(field);
    return v == null || !v.isTextual() ? null : v.asText();
  }

  /** A prompt argument's values that start with what was typed, from the prompt record's {@code values}. */
  private McpSchema.CompleteResult promptCompletion(String name, McpSchema.CompleteRequest.CompleteArgument argument) {
    Breadcrumb b = current().get(name);
    TreeSet<String> values = new TreeSet<>();
    if (b != null && !isAgent(b)) {
      for (JsonNode a : b.context().path("arguments")) {
        if (a.path("name").asText().equals(argument.name())) {
          a.path("values").forEach(v -> add(values, v.asText(), argument.value()));
        }
      }
    }
    return result(values);
  }

  /** A resource template variable's values from recent readable records: ids, schema names or tags. */
  private McpSchema.CompleteResult templateCompletion(McpSchema.CompleteRequest.CompleteArgument argument) {
    TreeSet<String> values = new TreeSet<>();
    for (Breadcrumb b : store.search(Selector.all(), SCAN, 0)) {
      if (!resources.readable(b)) {
        continue;
      }
      switch (argument.name()) {
        case "id" -> add(values, b.id(), argument.value());
        case "schema_name" -> add(values, b.schemaName(), argument.value());
        case "tag" -> b.tags().forEach(t -> add(values, t, argument.value()));
        default -> { }
      }
    }
    return result(values);
  }

  private static void add(TreeSet<String> values, @Nullable String value, @Nullable String typed) {
    if (value != null && (typed == null || value.startsWith(typed))) {
      values.add(value);
    }
  }

  private static McpSchema.CompleteResult result(TreeSet<String> values) {
    List<String> first = values.stream().limit(MAX_VALUES).toList();
    return new McpSchema.CompleteResult(new McpSchema.CompleteResult.CompleteCompletion(first, values.size(), values.size() > first.size()));
  }

  @Override
  public synchronized void close() {
    watching.forEach(Subscription::close);
    watching.clear();
  }
}
