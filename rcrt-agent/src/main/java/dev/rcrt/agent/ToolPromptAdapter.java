package dev.rcrt.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.agent.internal.prompt.FunctionNames;
import dev.rcrt.agent.internal.prompt.ToolText;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolDefinition;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns discovered tools into what a model reads: a concise text prompt (name, description, inputs
 * with types and required marks, output fields, one example per tool) and the OpenAI {@code tools}
 * array for native function calling.
 *
 * <p>OpenAI function names must match {@code ^[a-zA-Z0-9_-]{1,64}$}; other tool names are mapped
 * to safe ones, and {@link ToolPrompt#toolFor(String)} maps calls back. Each function's {@code
 * parameters} is the tool's input schema, given a root {@code "type": "object"} and {@code
 * properties} where it lacks them, as providers require. Descriptions are cut to 1,024 characters.
 *
 * <p>Each tool's rendering is cached by its breadcrumb id and version, so a tool is rendered once
 * per version however many turns offer it, and the last prompt is reused whole while the same
 * tool versions are offered in the same order. Prompts are shared: treat them as read-only.
 * Thread-safe.
 */
public final class ToolPromptAdapter {
  private static final int MAX_CACHED = 20_000;
  private final ConcurrentHashMap<String, Rendered> cache = new ConcurrentHashMap<>();
  private volatile Last last = new Last("", null);

  /** The last prompt built, with the tool versions and mode it was built for. */
  private record Last(String key, @org.jspecify.annotations.Nullable ToolPrompt prompt) {}

  /** One tool's text entry and OpenAI {@code tools} entry (shared, read-only). */
  private record Rendered(String text, ObjectNode entry) {}
  private static final int MAX_DESCRIPTION = 1024;
  private static final String HEADER =
      "You can call the tools below. Call a tool only when it helps; each result comes back as a"
          + " tool message, so read the output fields named here.\n\n";

  /**
   * Builds the prompt for {@code tools}, in the given order, with each tool's inputs described in
   * the text as well: for models that read only the text (RCRT's text protocol) or for showing.
   */
  public ToolPrompt adapt(List<ToolDefinition> tools) {
    return adapt(tools, true);
  }

  /**
   * Builds the prompt for native function calling: the text leaves out each tool's {@code Input}
   * line, because the {@code tools} array sent with it carries the same parameter names, types and
   * required marks; outputs and the example stay in the text.
   */
  public ToolPrompt adaptForFunctionCalling(List<ToolDefinition> tools) {
    return adapt(tools, false);
  }

  private ToolPrompt adapt(List<ToolDefinition> tools, boolean inputsInText) {
    StringBuilder key = new StringBuilder(inputsInText ? "i" : "f");
    for (ToolDefinition t : tools) {
      key.append('\n').append(t.sourceId()).append('@').append(t.sourceVersion()).append('#').append(t.name());
    }
    String k = key.toString();
    Last previous = last;
    if (previous.prompt() != null && previous.key().equals(k)) {
      return previous.prompt();
    }
    ToolPrompt built = build(tools, inputsInText);
    last = new Last(k, built);
    return built;
  }

  private ToolPrompt build(List<ToolDefinition> tools, boolean inputsInText) {
    Map<String, String> functionToTool = FunctionNames.assign(tools.stream().map(ToolDefinition::name).toList());
    String[] functionNames = functionToTool.keySet().toArray(String[]::new);
    StringBuilder text = new StringBuilder(tools.isEmpty() ? "" : HEADER);
    ArrayNode array = RcrtJson.array();
    for (int i = 0; i < tools.size(); i++) {
      if (i > 0) {
        text.append('\n');
      }
      Rendered r = rendered(tools.get(i), functionNames[i], inputsInText);
      text.append(r.text());
      array.add(r.entry());
    }
    return new ToolPrompt(text.toString(), array, functionToTool, tools);
  }

  private Rendered rendered(ToolDefinition tool, String functionName, boolean inputsInText) {
    String key = tool.sourceId() + "@" + tool.sourceVersion() + "#" + functionName + (inputsInText ? "#inputs" : "");
    Rendered hit = cache.get(key);
    if (hit != null) {
      return hit;
    }
    ObjectNode entry = RcrtJson.object();
    entry.put("type", "function");
    ObjectNode fn = entry.putObject("function");
    fn.put("name", functionName);
    String description = tool.description().strip();
    fn.put("description", description.length() <= MAX_DESCRIPTION ? description : description.substring(0, MAX_DESCRIPTION));
    fn.set("parameters", parameters(tool.inputSchema()));
    Rendered fresh = new Rendered(ToolText.of(tool, functionName, inputsInText), entry);
    if (cache.size() >= MAX_CACHED) {
      cache.clear();
    }
    cache.put(key, fresh);
    return fresh;
  }

  private static JsonNode parameters(JsonNode inputSchema) {
    ObjectNode params = inputSchema.deepCopy();
    if (!params.has("type")) {
      params.put("type", "object");
    }
    if (!params.has("properties")) {
      params.putObject("properties");
    }
    return params;
  }
}
