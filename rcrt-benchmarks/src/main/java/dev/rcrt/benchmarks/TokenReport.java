package dev.rcrt.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;
import dev.rcrt.agent.ToolPrompt;
import dev.rcrt.agent.ToolPromptAdapter;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolDefinition;
import java.util.List;
import java.util.Locale;

/**
 * Tokens per tool for 14 tools, counted with real tokenizers (jtokkit {@code cl100k_base} and
 * {@code o200k_base}): the adapter's text prompt, its OpenAI {@code tools} entry, and, for
 * comparison, the design's {@code llm_hints} view of a tool record (its name, description,
 * schemas and examples as JSON), reported there at ~150 tokens per tool.
 */
public final class TokenReport {
  private TokenReport() {}

  public static void main(String[] args) {
    InMemoryBreadcrumbStore store = new InMemoryBreadcrumbStore();
    Fixtures.seedTools(store, 14);
    List<ToolDefinition> tools = new dev.rcrt.tools.ToolDiscovery(store).discover().items();
    ToolPrompt prompt = new ToolPromptAdapter().adapt(tools);
    ToolPrompt functions = new ToolPromptAdapter().adaptForFunctionCalling(tools);
    for (EncodingType type : List.of(EncodingType.CL100K_BASE, EncodingType.O200K_BASE)) {
      Encoding enc = Encodings.newDefaultEncodingRegistry().getEncoding(type);
      int n = tools.size();
      double text = enc.countTokens(prompt.text()) / (double) n;
      double json = enc.countTokens(RcrtJson.write(prompt.tools())) / (double) n;
      double nativeText = enc.countTokens(functions.text()) / (double) n;
      double view = 0;
      for (ToolDefinition t : tools) {
        view += enc.countTokens(RcrtJson.write(hintsView(t)));
      }
      view /= n;
      System.out.printf(
          Locale.ROOT,
          "tokens per tool (%s, %d tools): native calls %.0f (text without inputs %.0f + tools entry %.0f); text protocol %.0f; design's llm_hints JSON view %.0f%n",
          type.getName(), n, nativeText + json, nativeText, json, text, view);
    }
  }

  /** RCRT's tool llm_hints view: include name, description, input_schema, output_schema, examples. */
  private static JsonNode hintsView(ToolDefinition t) {
    ObjectNode view = RcrtJson.object();
    view.put("name", t.name());
    view.put("description", t.description());
    view.set("input_schema", t.inputSchema());
    if (t.outputSchema() != null) {
      view.set("output_schema", t.outputSchema());
    }
    view.set("examples", t.context().path("examples"));
    return view;
  }
}
