package dev.rcrt.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbFiles;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.mcp.internal.McpTools;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An MCP server's tools as tool records: one {@code tool.v1} per tool, named {@code
 * <alias>.<tool>}, its {@code implementation} of type {@code mcp} pointing back at the server and
 * the tool ({@link McpToolRuntime} runs it), its input and output schemas, title and annotations as
 * the server gives them. Tools whose names break the MCP specification's rule are left out. Record
 * ids are derived from the alias and the tool's name ({@link #records}), so importing again updates
 * in place. The server's address is kept as given, {@code secret:NAME} references included: values
 * are resolved only when a tool is called.
 *
 * <p>{@link #follow} keeps a store in step while it runs: the server's {@code
 * notifications/tools/list_changed} re-imports, writing new and changed tools and deleting the
 * records of tools the server no longer has. Imported tools are trusted as their writer is: write
 * them as the host (or sign them) for the trust policy to offer them. Thread-safe.
 */
public final class McpImport implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(McpImport.class);
  /** The tag every imported record carries, {@code mcp:<alias>}, by which {@link #follow} finds its own. */
  public static final String TAG_PREFIX = "mcp:";

  private final BreadcrumbStore store;
  private final JsonNode server;
  private final String alias;
  private final McpClientSession session;

  private McpImport(BreadcrumbStore store, JsonNode server, String alias, McpClientSession session) {
    this.store = store;
    this.server = server;
    this.alias = alias;
    this.session = session;
  }

  /** What an alias may be: it becomes part of tool names and record ids. */
  private static final Pattern ALIAS = Pattern.compile("[A-Za-z0-9_-]{1,64}");

  /**
   * The records for {@code tools} of the server at {@code server} (its JSON form, {@link
   * McpServerAddress}). A tool whose name breaks the MCP specification's rule (1 to 128 of {@code
   * A-Z a-z 0-9 _ - .}; so no {@code ../}, spaces, control or bidirectional-override characters,
   * nor an empty name) is left out with a logged warning that shows the name escaped. Record ids
   * are {@code mcp-<alias>-<name>}, with each {@code .} of the name written {@code _2e} and each
   * {@code _} written {@code __}, so that two names never share an id and an id holds no dot.
   *
   * @throws IllegalArgumentException if {@code alias} is not 1 to 64 of {@code A-Z a-z 0-9 _ -}
   */
  public static List<BreadcrumbCreate> records(List<McpSchema.Tool> tools, String alias, JsonNode server) {
    checkAlias(alias);
    List<BreadcrumbCreate> out = new ArrayList<>();
    for (McpSchema.Tool tool : tools) {
      if (tool.name() == null || !McpTools.nameAllowed(tool.name())) { // the MCP specification's tool-name rule
        LOG.warn("MCP tool {} of '{}' not imported: a tool name must be 1 to 128 of A-Z a-z 0-9 _ - . (the MCP specification's"
            + " tool-name rule)", escaped(tool.name()), alias);
        continue;
      }
      String name = alias + "." + tool.name();
      ObjectNode context = RcrtJson.object();
      context.put("name", name);
      context.put("description", Objects.requireNonNullElse(tool.description(), tool.name()));
      ObjectNode implementation = context.putObject("implementation").put("type", "mcp");
      implementation.set("server", server.deepCopy());
      implementation.put("tool", tool.name());
      ObjectNode definition = context.putObject("definition");
      definition.set("inputSchema", withoutDialect(RcrtJson.toTree(tool.inputSchema())));
      if (tool.outputSchema() != null) {
        definition.set("outputSchema", withoutDialect(RcrtJson.toTree(tool.outputSchema())));
      }
      if (tool.annotations() != null) {
        context.set("annotations", RcrtJson.toTree(tool.annotations()));
      }
      out.add(BreadcrumbCreate.builder("tool.v1", tool.title() != null ? tool.title() : name)
          .id("mcp-" + alias + "-" + tool.name().replace("_", "__").replace(".", "_2e"))
          .tags("tool", "tool:" + name, "workspace:tools", TAG_PREFIX + alias)
          .context(context)
          .build());
    }
    return out;
  }

  /**
   * The server's resources as {@code mcp.resource.v1} records, which {@code mcp serve} serves: each
   * resource read once, its text or base64 blob kept (at most 1,000 resources, each at most 1 MiB;
   * others are left out with a logged warning). Resource templates are not imported: their
   * contents depend on the values given. Ids are {@code mcp-<alias>-resource-<digest of the URI>}.
   */
  public static List<BreadcrumbCreate> resources(McpClientSession session, String alias) {
    checkAlias(alias);
    return dev.rcrt.mcp.internal.CatalogImport.resources(session.listResources(dev.rcrt.mcp.internal.CatalogImport.MAX_ITEMS),
        session::readResource, alias);
  }

  /**
   * The server's prompts as {@code mcp.prompt.v1} records named {@code <alias>.<name>}: each prompt
   * got once with every argument set to {@code {argument}}, so serving the record fills the values
   * in where the server put them. A prompt the server will not give with such values, or whose
   * messages hold other content than text, images and embedded resources, is left out with a
   * logged warning. Ids are {@code mcp-<alias>-prompt-<digest of the name>}.
   */
  public static List<BreadcrumbCreate> prompts(McpClientSession session, String alias) {
    checkAlias(alias);
    return dev.rcrt.mcp.internal.CatalogImport.prompts(session.listPrompts(dev.rcrt.mcp.internal.CatalogImport.MAX_ITEMS), session::getPrompt, alias);
  }

  private static void checkAlias(String alias) {
    if (!ALIAS.matcher(alias).matches()) {
      throw new IllegalArgumentException("MCP import alias " + escaped(alias) + " must be 1 to 64 of A-Z a-z 0-9 _ -");
    }
  }

  /** {@code text} quoted, with everything but printable ASCII as {@code \\uXXXX}: safe to log whatever a server sent. */
  private static String escaped(@Nullable String text) {
    if (text == null) {
      return "(no name)";
    }
    return "'" + dev.rcrt.core.spi.Excerpts.escaped(text, 200) + "'";
  }

  /**
   * A short name for a server: its {@code serverInfo.name}'s last path segment, lower case, with
   * anything but letters, digits and {@code -} made {@code -} ({@code mcp-servers/everything} →
   * {@code everything}).
   */
  public static String aliasOf(McpSchema.Implementation serverInfo) {
    String name = serverInfo == null || serverInfo.name() == null ? "mcp" : serverInfo.name();
    String last = name.substring(name.lastIndexOf('/') + 1).toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]+", "-").replaceAll("^-+|-+$", "");
    return last.isEmpty() ? "mcp" : last;
  }

  /**
   * Connects to the server, imports its tools into {@code store} and keeps them in step until
   * closed.
   *
   * @param server the server's JSON form, as the records will hold it
   * @param alias the name prefix, or null for {@link #aliasOf the server's}
   * @param secrets resolves {@code secret:NAME} header and env values for this connection
   */
  public static McpImport follow(BreadcrumbStore store, JsonNode server, String alias, UnaryOperator<String> secrets, Duration timeout) {
    McpServerAddress address = McpServerAddress.fromJson(server).resolved(v -> v.startsWith("secret:") ? secrets.apply(v) : v);
    McpImport[] self = new McpImport[1];
    McpClientSession session = McpClientSession.connect(address, timeout, tools -> {
      if (self[0] != null) {
        self[0].write(tools);
      }
    });
    McpImport imported = new McpImport(store, server, alias != null ? alias : aliasOf(session.serverInfo()), session);
    self[0] = imported;
    imported.write(session.listTools());
    return imported;
  }

  /** The alias the records are named with. */
  public String alias() {
    return alias;
  }

  /** Writes the records for {@code tools} and deletes this alias's records of tools no longer listed. */
  private synchronized void write(List<McpSchema.Tool> tools) {
    List<BreadcrumbCreate> records = records(tools, alias, server);
    Set<String> ids = new HashSet<>();
    for (BreadcrumbCreate r : records) {
      BreadcrumbFiles.upsert(store, r);
      ids.add(r.id());
    }
    for (Breadcrumb old : store.search(Selector.allTags(TAG_PREFIX + alias), 10_000, 0)) {
      if ("tool.v1".equals(old.schemaName()) && !ids.contains(old.id())) {
        store.delete(old.id());
      }
    }
  }

  /** Stops following; the records stay. */
  @Override
  public void close() {
    session.close();
  }

  /** MCP servers declare their schema dialect; the records' validator reads the schema itself. */
  private static JsonNode withoutDialect(JsonNode schema) {
    if (schema.isObject() && schema.has("$schema")) {
      ObjectNode copy = ((ObjectNode) schema).deepCopy();
      copy.remove("$schema");
      return copy;
    }
    return schema;
  }
}
