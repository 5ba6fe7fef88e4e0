package dev.rcrt.agent.internal.loop;

import dev.rcrt.agent.ToolPrompt;
import dev.rcrt.tools.ToolDefinition;
import java.util.Map;

/**
 * What one turn offers the model.
 *
 * @param prompt the tools' text and OpenAI {@code tools}, with the function-name mapping
 * @param byName the offered tools (and specialists) by tool name
 * @param instructions the second system message: context sources, else the tool text
 * @param textProtocol whether the agent writes calls as JSON text instead of {@code tool_calls}
 */
public record Offer(ToolPrompt prompt, Map<String, ToolDefinition> byName, String instructions, boolean textProtocol) {}
