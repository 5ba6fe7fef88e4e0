package dev.rcrt.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import dev.rcrt.llm.ChatOptions;
import dev.rcrt.tools.ToolTrustPolicy;
import org.jspecify.annotations.Nullable;

/**
 * The model an agent asks and how, as RCRT decides it: the agent definition's own {@code model}
 * and options first, then the {@code tool.config.v1} its {@code llm_config_id} names ({@code
 * config: {defaultModel, temperature, maxTokens, apiKeySecretId}}), which RCRT's own agents use
 * instead of a {@code model}, then the model client's default.
 *
 * @param model the model id to ask, or null when neither the agent nor its config names one (the
 *     model client's default then applies: {@link #model(String)})
 * @param options the agent's options, with the config's {@code temperature} and {@code maxTokens}
 *     where the agent sets none
 * @param apiKeySecretId the secret name the config gives for the provider's API key (resolve it
 *     through a {@link dev.rcrt.tools.SecretResolver} when building the {@link dev.rcrt.llm.LlmClient}),
 *     or null
 */
public record LlmConfig(@Nullable String model, ChatOptions options, @Nullable String apiKeySecretId) {
  /** The schema of the records {@code llm_config_id} names. */
  public static final String SCHEMA = "tool.config.v1";

  /**
   * Resolves {@code agent}'s model settings against the store, as of now (a changed config counts
   * from the next turn).
   *
   * @param policy only a config whose writer (or signature) the policy trusts is used: a config
   *     steers which model hears the conversation and which key pays for it
   * @throws ValidationException when the {@code llm_config_id} is unusable while the agent names no
   *     model: it names no record, a record of another schema, or an untrusted one; the message
   *     says which
   */
  public static LlmConfig resolve(AgentDefinition agent, BreadcrumbStore store, ToolTrustPolicy policy) {
    String id = agent.llmConfigId();
    if (id == null) {
      return new LlmConfig(agent.model(), agent.options(), null);
    }
    JsonNode config = RcrtJson.object();
    String where = "agent '" + agent.agentId() + "' llm_config_id '" + id + "'";
    Breadcrumb record = store.get(id).orElse(null);
    if (record == null || !SCHEMA.equals(record.schemaName())) {
      if (agent.model() == null) {
        throw new ValidationException(where + ": no " + SCHEMA + " record has that id; store one with config.defaultModel, or give the agent a model");
      }
    } else {
      String untrusted = policy.whyUntrusted(record);
      if (untrusted != null) {
        throw new ValidationException(where + " is not used: " + untrusted);
      }
      config = record.context().path("config");
    }
    String model = agent.model() != null ? agent.model() : text(config, "defaultModel", "model");
    ObjectNode merged = RcrtJson.object();
    if (config.path("temperature").isNumber()) {
      merged.set("temperature", config.get("temperature"));
    }
    if (config.path("maxTokens").canConvertToInt()) {
      merged.put("max_tokens", config.get("maxTokens").asInt());
    }
    merged.setAll(agent.options().toJson());
    return new LlmConfig(
        model, ChatOptions.fromContext(merged, "agent '" + agent.agentId() + "' llm config"), text(config, "apiKeySecretId", "api_key_secret_id"));
  }

  /**
   * The model to ask: this config's, else {@code clientDefault}.
   *
   * @param clientDefault the client's {@link dev.rcrt.llm.LlmClient#defaultModel()}, or null
   * @throws ValidationException when both are null, saying what to set
   */
  public String model(@Nullable String clientDefault) {
    if (model != null) {
      return model;
    }
    if (clientDefault != null) {
      return clientDefault;
    }
    throw new ValidationException(
        "the agent names no model: set context.model, or an llm_config_id whose " + SCHEMA
            + " has config.defaultModel, or give the model client a default model");
  }

  private static @Nullable String text(JsonNode config, String name, String alternative) {
    JsonNode value = config.hasNonNull(name) ? config.get(name) : config.get(alternative);
    return value != null && value.isTextual() && !value.asText().isBlank() ? value.asText() : null;
  }
}
