package dev.rcrt.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbFiles;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.ContextMatch;
import dev.rcrt.core.LoadReport;
import dev.rcrt.core.NotFoundException;
import dev.rcrt.core.Principal;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.ValidationException;
import dev.rcrt.llm.ChatOptions;
import dev.rcrt.tools.ToolDefinition;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An agent, read from an RCRT {@code agent.definition.v1} or {@code agent.def.v1} breadcrumb:
 * {@code {agent_id, model?, llm_config_id?, system_prompt, temperature?, max_tokens?, tool_choice?,
 * response_format?, parallel_tool_calls?, seed?, stop?, tool_protocol?, subscriptions: {selectors:
 * [...]}}}, or built in code with {@link #builder(String)}. RCRT's own agents name no {@code model}
 * but an {@code llm_config_id} ({@link LlmConfig}); their selectors may carry {@code role}, {@code
 * key} and {@code fetch} (read by the executor from {@link #context()}).
 *
 * @param agentId the agent's id; written as {@code requestedBy} on its tool requests
 * @param model the model id to ask, or null when it comes from the {@code llm_config_id}'s
 *     config ({@link LlmConfig#resolve})
 * @param systemPrompt the first system message of every turn
 * @param options the sampling and output settings every request of this agent carries
 * @param subscriptions the selectors whose new breadcrumbs trigger a turn (RCRT's {@code role:
 *     "trigger"} ones, or those without a role; {@code role: "context"} ones supply data instead);
 *     copied
 * @param context the definition's whole context, for settings read by later features (tool
 *     selectors, budgets, context sources)
 */
public record AgentDefinition(
    String agentId,
    @Nullable String model,
    String systemPrompt,
    ChatOptions options,
    List<Selector> subscriptions,
    JsonNode context) {

  /** The schemas agent definitions use. */
  public static final List<String> SCHEMAS = List.of("agent.definition.v1", "agent.def.v1");

  private static final Logger LOG = LoggerFactory.getLogger(AgentDefinition.class);

  /** Validates and copies. */
  public AgentDefinition {
    Objects.requireNonNull(agentId, "agentId");
    Objects.requireNonNull(systemPrompt, "systemPrompt");
    Objects.requireNonNull(options, "options");
    subscriptions = List.copyOf(subscriptions);
    Objects.requireNonNull(context, "context");
  }

  /**
   * The tools of {@code tools} this agent may be offered: those whose {@code category} is one of
   * its {@code tool_categories}, or all of them when it names none. Order is kept.
   */
  public List<ToolDefinition> toolsInCategories(List<ToolDefinition> tools) {
    JsonNode categories = context.path("tool_categories");
    if (!categories.isArray() || categories.isEmpty()) {
      return tools;
    }
    java.util.Set<String> wanted = new java.util.HashSet<>();
    categories.forEach(c -> wanted.add(c.asText()));
    return tools.stream().filter(t -> t.category() != null && wanted.contains(t.category())).toList();
  }

  /** The {@code tool.config.v1} id RCRT's agents take their model from, or null. */
  public @Nullable String llmConfigId() {
    JsonNode id = context.get("llm_config_id");
    return id != null && id.isTextual() && !id.asText().isBlank() ? id.asText() : null;
  }

  /** The same agent asking another model. */
  public AgentDefinition withModel(String newModel) {
    return new AgentDefinition(agentId, newModel, systemPrompt, options, subscriptions, context);
  }

  /**
   * Reads an agent from its breadcrumb.
   *
   * @throws ValidationException if the schema is not an agent schema, {@code system_prompt} is
   *     missing, a model setting has the wrong type, or a subscription selector is malformed
   */
  public static AgentDefinition fromBreadcrumb(Breadcrumb b) {
    if (!SCHEMAS.contains(b.schemaName())) {
      throw new ValidationException(
          "breadcrumb '" + b.id() + "' is a " + b.schemaName() + ", not one of " + SCHEMAS);
    }
    JsonNode c = b.context();
    String where = "agent definition '" + b.id() + "'";
    String agentId = b.contextText("agent_id");
    JsonNode settings = modelSettings(c);
    String model = settings.path("model").isValueNode() && !settings.path("model").isNull() ? settings.get("model").asText() : null;
    String prompt = b.contextText("system_prompt");
    if (model != null && model.isBlank()) {
      model = null;
    }
    if (prompt == null) {
      throw new ValidationException(where + " context/system_prompt: required, found none");
    }
    List<Selector> selectors = new ArrayList<>();
    JsonNode list = c.path("subscriptions").path("selectors");
    for (int i = 0; i < list.size(); i++) {
      if ("context".equals(list.get(i).path("role").asText())) {
        continue; // RCRT's context selectors supply data; they start no turn
      }
      try {
        selectors.add(Selector.fromJson(list.get(i)));
      } catch (ValidationException e) {
        throw new ValidationException(where + " context/subscriptions/selectors/" + i + ": " + e.getMessage());
      }
    }
    return new AgentDefinition(
        agentId != null ? agentId : b.id(), model, prompt, ChatOptions.fromContext(settings, where), selectors, c);
  }

  /**
   * The model and its options as the record gives them: its own {@code model}, {@code temperature},
   * {@code max_tokens}, … fields, over those of RCRT's {@code llm_config} object ({@code {provider,
   * model, temperature, max_tokens, …}}, as RCRT's note agents carry them; {@code provider} is the
   * host's client's to decide, so it is not read).
   */
  private static JsonNode modelSettings(JsonNode context) {
    JsonNode nested = context.path("llm_config");
    if (!nested.isObject()) {
      return context;
    }
    com.fasterxml.jackson.databind.node.ObjectNode merged = ((com.fasterxml.jackson.databind.node.ObjectNode) nested).deepCopy();
    merged.remove("provider");
    context.properties().forEach(e -> {
      if (!e.getValue().isNull()) {
        merged.set(e.getKey(), e.getValue());
      }
    });
    return merged;
  }

  /**
   * The agent {@code agentId} as the store defines it: the newest {@code agent.definition.v1} or
   * {@code agent.def.v1} record with that {@code agent_id} written by the host. Definitions written
   * by anyone else (a tool, an agent) are skipped with a WARN log line: an agent definition decides
   * which tools run and what the model is told, so only the host may write one.
   *
   * @throws NotFoundException if there is none, naming the agents the store defines
   * @throws ValidationException if the newest definition is malformed (see {@link #fromBreadcrumb})
   */
  public static AgentDefinition load(BreadcrumbStore store, String agentId) {
    Breadcrumb newest = null;
    for (String schema : SCHEMAS) {
      for (Breadcrumb b : store.search(Selector.schema(schema).withMatch(ContextMatch.eq("$.agent_id", agentId)), 20, 0)) {
        if (!Principal.writerOf(b).isHost()) {
          LOG.warn("agent definition '{}' skipped: written by {}, not by the host", b.id(), Principal.writerOf(b));
          continue;
        }
        if (newest == null || b.updatedAt().isAfter(newest.updatedAt())) {
          newest = b;
        }
        break;
      }
    }
    if (newest == null) {
      throw new NotFoundException("no agent definition with agent_id '" + agentId + "'; loaded agents: " + ids(store));
    }
    return fromBreadcrumb(newest);
  }

  /**
   * The ids of the agents the store defines with records the host wrote (those {@link #load}
   * accepts), sorted; among the newest 1,000 definitions of each schema.
   */
  public static List<String> ids(BreadcrumbStore store) {
    TreeSet<String> known = new TreeSet<>();
    for (String schema : SCHEMAS) {
      for (Breadcrumb b : store.search(Selector.schema(schema), 1000, 0)) {
        String id = b.contextText("agent_id");
        if (id != null && !id.isBlank() && Principal.writerOf(b).isHost()) {
          known.add(id);
        }
      }
    }
    return List.copyOf(known);
  }

  /**
   * A builder for an agent defined in code.
   *
   * @param agentId the agent's id, such as {@code "support-bot"}
   */
  public static Builder builder(String agentId) {
    return new Builder(agentId);
  }

  /**
   * This agent as an {@code agent.def.v1} breadcrumb to store (titled by its id, tagged {@code
   * agent:def} and {@code agent:<id>}), so that other processes and {@code ./rcrt} find it.
   */
  public BreadcrumbCreate toBreadcrumb() {
    return BreadcrumbCreate.builder("agent.def.v1", agentId)
        .tags("agent:def", "agent:" + agentId)
        .context(context)
        .build();
  }

  /** Builder for {@link AgentDefinition}. Not thread-safe. */
  public static final class Builder {
    private final String agentId;
    private String model = "gpt-4o-mini";
    private String systemPrompt = "You are a helpful assistant.";
    private ChatOptions options = ChatOptions.DEFAULTS;
    private final List<Selector> subscriptions = new ArrayList<>();
    private ObjectNode settings = RcrtJson.object();

    private Builder(String agentId) {
      if (Objects.requireNonNull(agentId, "agentId").isBlank()) {
        throw new IllegalArgumentException("agentId is blank");
      }
      this.agentId = agentId;
    }

    /** The model id to ask; default {@code gpt-4o-mini}. */
    public Builder model(String model) {
      this.model = Objects.requireNonNull(model, "model");
      return this;
    }

    /** The first system message of every turn; default {@code "You are a helpful assistant."}. */
    public Builder systemPrompt(String systemPrompt) {
      this.systemPrompt = Objects.requireNonNull(systemPrompt, "systemPrompt");
      return this;
    }

    /** The sampling and output settings; default {@link ChatOptions#DEFAULTS}. */
    public Builder options(ChatOptions options) {
      this.options = Objects.requireNonNull(options, "options");
      return this;
    }

    /** A selector whose new breadcrumbs trigger a turn ({@link AgentExecutor#start()}). */
    public Builder subscribe(Selector selector) {
      subscriptions.add(Objects.requireNonNull(selector, "selector"));
      return this;
    }

    /**
     * Further context settings as the breadcrumb form has them ({@code tools}, budgets, {@code
     * context_sources}, …); the fields this builder sets win over the same fields here.
     */
    public Builder settings(JsonNode settings) {
      if (!settings.isObject()) {
        throw new IllegalArgumentException("settings must be a JSON object, found " + settings.getNodeType());
      }
      this.settings = (ObjectNode) settings.deepCopy();
      return this;
    }

    /** The agent; its {@code context} is what {@link #toBreadcrumb()} stores. */
    public AgentDefinition build() {
      ObjectNode c = settings.deepCopy();
      c.put("agent_id", agentId);
      c.put("model", model);
      c.put("system_prompt", systemPrompt);
      c.setAll(options.toJson());
      ArrayNode selectors = c.putObject("subscriptions").putArray("selectors");
      subscriptions.forEach(s -> selectors.add(RcrtJson.toTree(s)));
      return new AgentDefinition(agentId, model, systemPrompt, options, subscriptions, c);
    }
  }

  /**
   * The bundled default chat agent ({@code default-chat-assistant}) as a breadcrumb to store: it
   * answers every {@code user.message.v1} with the tools it discovers.
   */
  public static BreadcrumbCreate defaultChatAgent() {
    String resource = "default-chat-agent.json";
    try (InputStream in = AgentDefinition.class.getResourceAsStream(resource)) {
      LoadReport<BreadcrumbCreate> parsed = BreadcrumbFiles.parse(resource, Objects.requireNonNull(in, resource));
      if (!parsed.isClean() || parsed.items().size() != 1) {
        throw new IllegalStateException("bundled agent definition broken: " + parsed.problems());
      }
      return parsed.items().get(0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
