package dev.rcrt.agent;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.rcrt.tools.ToolDefinition;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@link ToolPromptAdapter} makes of a set of tools.
 *
 * @param text the tool instructions for a system message; empty when there are no tools
 * @param tools the OpenAI chat-completions {@code tools} array: {@code [{type: "function",
 *     function: {name, description, parameters}}]}. Shared, treat as read-only.
 * @param functionToTool OpenAI function name → tool name, in prompt order, to map calls back; copied
 * @param definitions the tools, in prompt order; copied
 */
public record ToolPrompt(
    String text, ArrayNode tools, Map<String, String> functionToTool, List<ToolDefinition> definitions) {

  /** Validates and copies. */
  public ToolPrompt {
    Objects.requireNonNull(text, "text");
    Objects.requireNonNull(tools, "tools");
    functionToTool = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(functionToTool));
    definitions = List.copyOf(definitions);
  }

  /** The tool a function name the model used stands for, or empty if none was offered. */
  public Optional<String> toolFor(String functionName) {
    return Optional.ofNullable(functionToTool.get(functionName));
  }
}
