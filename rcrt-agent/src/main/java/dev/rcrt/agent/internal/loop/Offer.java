package dev.rcrt.agent.internal.loop;

import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.ToolPrompt;
import dev.rcrt.tools.ToolDefinition;
import java.util.Locale;
import java.util.Map;

/**
 * What one turn offers the model.
 *
 * @param prompt the tools' text and OpenAI {@code tools}, with the function-name mapping
 * @param byName the offered tools (and specialists) by tool name
 * @param instructions the second system message: context sources, else the tool text
 * @param protocol how the model asks for tools
 */
public record Offer(ToolPrompt prompt, Map<String, ToolDefinition> byName, String instructions, Protocol protocol) {

  /** How a model asks for tools: an agent's {@code tool_protocol}. */
  public enum Protocol {
    /** OpenAI {@code tools} and {@code tool_calls}. */
    NATIVE,
    /** {@code {"action": "invoke_tool", …}} written as text ({@link TextToolCalls}). */
    TEXT,
    /** RCRT's JSON envelope with {@code tool_requests} ({@link Envelope}). */
    ENVELOPE;

    /**
     * The agent's {@code tool_protocol} ({@code native}, {@code text} or {@code envelope}); without
     * one, RCRT's agents (those that take their model from an {@code llm_config_id}) use the
     * envelope, every other agent native calls.
     */
    public static Protocol of(AgentDefinition agent) {
      String named = agent.context().path("tool_protocol").asText("");
      if (named.isBlank()) {
        return agent.llmConfigId() != null && agent.model() == null ? ENVELOPE : NATIVE;
      }
      return switch (named.toLowerCase(Locale.ROOT)) {
        case "text" -> TEXT;
        case "envelope" -> ENVELOPE;
        default -> NATIVE;
      };
    }
  }

  /** Whether requests carry OpenAI {@code tools}. */
  public boolean sendsTools() {
    return protocol == Protocol.NATIVE;
  }
}
