package dev.rcrt.agent.internal.loop;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.ToolPrompt;
import dev.rcrt.agent.ToolPromptAdapter;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.ContextView;
import dev.rcrt.core.LoadReport;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.ValidationException;
import dev.rcrt.core.VectorSearch;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolImplementation;
import dev.rcrt.tools.ToolRunner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Discover and offer: the tools in the store (a tool written a moment ago is offered on the next
 * turn), kept to the agent's {@code tool_categories}, fitted into {@code tool_budget_tokens} by
 * relevance to the message, plus, for a primary agent below the depth limit, every enabled
 * specialist agent as a tool. Only records whose writers the runner's policy trusts are offered.
 * Thread-safe.
 */
final class Offers {
  private static final Logger LOG = LoggerFactory.getLogger(Offers.class);

  /** A specialist's tool deadline is its timeout plus this, so that its own timeout message is the one recorded. */
  private static final Duration SPECIALIST_GRACE = Duration.ofSeconds(1);

  private static final JsonNode MESSAGE_PARAMETERS =
      RcrtJson.parse("{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\",\"description\":\"The message to send to the agent\"}},\"required\":[\"message\"]}");

  private final LoopSettings settings;
  private final AgentDefinition agent;
  private final int depth;
  private final ToolRunner runner;
  private final BreadcrumbStore store;
  private final ContextView views;
  private final ToolPromptAdapter adapter = new ToolPromptAdapter();

  Offers(LoopSettings settings, AgentDefinition agent, int depth) {
    this.settings = settings;
    this.agent = agent;
    this.depth = depth;
    this.runner = settings.runner();
    this.store = runner.store();
    // lenient: a broken hint shows that record's raw context instead of stopping every turn
    this.views =
        ContextView.builder(store)
            .lenient(true)
            .trustedWriters(p -> runner.policy().trusts(p, ContextView.SCHEMA_DEFINITION))
            .build();
  }

  /**
   * The offer for a turn answering {@code message} in {@code session}, asking {@code model}, with
   * {@code triggerContext} (an {@code agent.context.v1}'s breadcrumbs, or empty) and the agent's
   * context selectors' data after the tools.
   */
  Offer offer(String message, String session, String model, String triggerContext) {
    LoadReport<ToolDefinition> discovered = runner.discovery().discover();
    discovered.problems().forEach(p -> LOG.warn("tool breadcrumb skipped: {}", p));
    List<ToolDefinition> tools = new ArrayList<>(agent.toolsInCategories(discovered.items()));
    tools.removeIf(t -> !runner.serves(t)); // a tool this runner cannot run is not offered: every call of it would fail
    Offer.Protocol protocol = Offer.Protocol.of(agent);
    boolean text = protocol != Offer.Protocol.NATIVE;
    JsonNode limit = agent.context().path("tool_budget_tokens");
    if (limit.canConvertToInt() && limit.asInt() > 0) {
      tools = settings.budget().select(tools, message, limit.asInt(), model, !text, store.vectorSearch().flatMap(VectorSearch::provider).orElse(null));
    }
    tools.addAll(specialists());
    ToolPrompt prompt = text ? adapter.adapt(tools) : adapter.adaptForFunctionCalling(tools);
    Map<String, ToolDefinition> byName = new LinkedHashMap<>();
    tools.forEach(t -> byName.put(t.name(), t));
    String protocolText = tools.isEmpty() ? "" : switch (protocol) {
      case TEXT -> TextToolCalls.INSTRUCTIONS;
      case ENVELOPE -> Envelope.INSTRUCTIONS;
      case NATIVE -> "";
    };
    String data = SelectorContext.build(store, views, agent.context(), message) + triggerContext;
    String instructions = ContextSources.build(store, views, agent.context(), session).orElse(prompt.text());
    if (!protocolText.isEmpty() || !data.isEmpty()) { // the prompt text is long: copy it only when something is added
      instructions = instructions + protocolText + (data.isEmpty() ? "" : "\n" + data);
    }
    return new Offer(prompt, byName, instructions, protocol);
  }

  /**
   * For a primary agent below the depth limit: every enabled, non-primary agent as a tool whose
   * implementation type is {@code agent}, parameters {@code {message}} unless it declares its own.
   */
  private List<ToolDefinition> specialists() {
    if (!agent.context().path("is_primary").asBoolean(false) || depth >= settings.maxAgentDepth()) {
      return List.of();
    }
    List<ToolDefinition> out = new ArrayList<>();
    for (String schema : AgentDefinition.SCHEMAS) {
      for (Breadcrumb b : store.search(Selector.schema(schema), 500, 0)) {
        JsonNode c = b.context();
        if (!c.path("enabled").asBoolean(false) || c.path("is_primary").asBoolean(false)) {
          continue;
        }
        String untrusted = runner.policy().whyUntrusted(b);
        if (untrusted != null) {
          LOG.warn("specialist agent '{}' skipped: {}", b.id(), untrusted);
          continue;
        }
        AgentDefinition specialist;
        try {
          specialist = AgentDefinition.fromBreadcrumb(b);
        } catch (ValidationException e) {
          LOG.warn("specialist agent skipped: {}", e.getMessage());
          continue;
        }
        if (specialist.agentId().equals(agent.agentId())) {
          continue;
        }
        String description =
            c.hasNonNull("toolDescription") ? c.get("toolDescription").asText()
                : c.hasNonNull("description") ? c.get("description").asText()
                : b.description() != null ? b.description() : b.title();
        JsonNode parameters = c.path("parameters").isObject() ? c.get("parameters") : MESSAGE_PARAMETERS;
        out.add(new ToolDefinition(
            specialist.agentId(), description, "agent", null, parameters, null, List.of(),
            new ToolImplementation("agent", RcrtJson.object().put("agent_id", specialist.agentId())),
            settings.specialistTimeout().plus(SPECIALIST_GRACE), b.id(), b.version(), String.valueOf(b.schemaName()), c));
      }
    }
    return out;
  }
}
