package dev.rcrt.agent;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbFiles;
import dev.rcrt.core.LoadReport;
import dev.rcrt.core.Selector;
import dev.rcrt.core.ValidationException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * An agent, read from an RCRT {@code agent.definition.v1} or {@code agent.def.v1} breadcrumb:
 * {@code {agent_id, model, system_prompt, temperature, subscriptions: {selectors: [...]}}}.
 *
 * @param agentId the agent's id; written as {@code requestedBy} on its tool requests
 * @param model the model id to ask
 * @param systemPrompt the first system message of every turn
 * @param temperature sampling temperature, or null for the provider default
 * @param subscriptions the selectors whose new breadcrumbs trigger a turn; copied
 * @param context the definition's whole context, for settings read by later features
 */
public record AgentDefinition(
    String agentId,
    String model,
    String systemPrompt,
    @Nullable Double temperature,
    List<Selector> subscriptions,
    JsonNode context) {

  /** The schemas agent definitions use. */
  public static final List<String> SCHEMAS = List.of("agent.definition.v1", "agent.def.v1");

  /** Validates and copies. */
  public AgentDefinition {
    Objects.requireNonNull(agentId, "agentId");
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(systemPrompt, "systemPrompt");
    subscriptions = List.copyOf(subscriptions);
    Objects.requireNonNull(context, "context");
  }

  /** The same agent asking another model. */
  public AgentDefinition withModel(String newModel) {
    return new AgentDefinition(agentId, newModel, systemPrompt, temperature, subscriptions, context);
  }

  /**
   * Reads an agent from its breadcrumb.
   *
   * @throws ValidationException if the schema is not an agent schema, {@code system_prompt} or
   *     {@code model} is missing, or a subscription selector is malformed
   */
  public static AgentDefinition fromBreadcrumb(Breadcrumb b) {
    if (!SCHEMAS.contains(b.schemaName())) {
      throw new ValidationException(
          "breadcrumb '" + b.id() + "' is a " + b.schemaName() + ", not one of " + SCHEMAS);
    }
    JsonNode c = b.context();
    String where = "agent definition '" + b.id() + "'";
    String agentId = b.contextText("agent_id");
    String model = b.contextText("model");
    String prompt = b.contextText("system_prompt");
    if (model == null || model.isBlank()) {
      throw new ValidationException(where + " context/model: required, found none");
    }
    if (prompt == null) {
      throw new ValidationException(where + " context/system_prompt: required, found none");
    }
    List<Selector> selectors = new ArrayList<>();
    JsonNode list = c.path("subscriptions").path("selectors");
    for (int i = 0; i < list.size(); i++) {
      try {
        selectors.add(Selector.fromJson(list.get(i)));
      } catch (ValidationException e) {
        throw new ValidationException(where + " context/subscriptions/selectors/" + i + ": " + e.getMessage());
      }
    }
    JsonNode t = c.get("temperature");
    return new AgentDefinition(
        agentId != null ? agentId : b.id(),
        model,
        prompt,
        t != null && t.isNumber() ? t.asDouble() : null,
        selectors,
        c);
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
