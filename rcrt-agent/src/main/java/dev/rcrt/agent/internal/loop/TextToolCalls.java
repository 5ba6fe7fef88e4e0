package dev.rcrt.agent.internal.loop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import dev.rcrt.llm.ToolCall;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The design's text protocol for models without native function calling: a reply whose JSON is
 * {@code {"action": "invoke_tool", "tool": "…", "input": {…}}}, alone or inside a fenced {@code
 * json} block (several fenced blocks give several calls). Recognised both for agents that use the
 * text protocol and when a native-tools model writes such JSON into its content instead of {@code
 * tool_calls}.
 */
public final class TextToolCalls {
  /** The instructions added to the tool prompt for text-protocol agents. */
  public static final String INSTRUCTIONS =
      "\nTo use a tool, reply with only this JSON (no other text):\n"
          + "{\"action\": \"invoke_tool\", \"tool\": \"tool_name\", \"input\": { /* the tool's parameters */ }}\n"
          + "The result comes back in the next message. When you have the answer, reply in plain text.\n";

  /** The start of the ids given to calls written as text, so that memory replays them as text. */
  public static final String ID_PREFIX = "text_call_";

  private static final Pattern FENCED = Pattern.compile("```(?:json)?\\s*(\\{.*?})\\s*```", Pattern.DOTALL);

  private TextToolCalls() {}

  /**
   * The tool calls written in {@code content}, with ids {@code text_call_<prefix>_<n>}; empty when
   * there are none.
   */
  public static List<ToolCall> parse(String content, String prefix) {
    List<String> candidates = new ArrayList<>();
    Matcher fenced = FENCED.matcher(content);
    while (fenced.find()) {
      candidates.add(fenced.group(1));
    }
    if (candidates.isEmpty()) {
      String trimmed = content.strip();
      if (trimmed.startsWith("{") && trimmed.endsWith("}")) {
        candidates.add(trimmed);
      }
    }
    List<ToolCall> calls = new ArrayList<>();
    for (String candidate : candidates) {
      JsonNode json;
      try {
        json = RcrtJson.parse(candidate);
      } catch (ValidationException notJson) {
        continue;
      }
      if ("invoke_tool".equals(json.path("action").asText()) && json.path("tool").isTextual()) {
        JsonNode input = json.has("input") ? json.get("input") : RcrtJson.object();
        calls.add(new ToolCall(ID_PREFIX + prefix + "_" + calls.size(), json.get("tool").asText(), RcrtJson.write(input)));
      }
    }
    return calls;
  }

  /** Whether {@code call} was written as text rather than sent as a native {@code tool_calls} entry. */
  public static boolean isWritten(ToolCall call) {
    return call.id().startsWith(ID_PREFIX);
  }

  /** The assistant text that makes {@code calls}: one JSON object alone, several as fenced blocks. */
  public static String written(List<ToolCall> calls) {
    List<String> blocks = new ArrayList<>();
    for (ToolCall call : calls) {
      ObjectNode json = RcrtJson.object().put("action", "invoke_tool").put("tool", call.name());
      json.set("input", RcrtJson.parse(call.arguments().isBlank() ? "{}" : call.arguments()));
      blocks.add(RcrtJson.write(json));
    }
    return blocks.size() == 1 ? blocks.get(0) : "```json\n" + String.join("\n```\n```json\n", blocks) + "\n```";
  }

  /** The user message that gives the model the results of calls it wrote as text, in call order. */
  public static String results(List<ToolCall> calls, List<String> results) {
    StringBuilder text = new StringBuilder("Tool results:");
    for (int i = 0; i < calls.size(); i++) {
      text.append("\n").append(calls.get(i).name()).append(": ").append(results.get(i));
    }
    return text.toString();
  }
}
