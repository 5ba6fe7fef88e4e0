package dev.rcrt.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolDiscovery;
import java.util.List;
import org.junit.jupiter.api.Test;

class ToolPromptAdapterTest {
  private final InMemoryBreadcrumbStore store = new InMemoryBreadcrumbStore();
  private final ToolPromptAdapter adapter = new ToolPromptAdapter();

  private List<ToolDefinition> tools() {
    return new ToolDiscovery(store).discover().items();
  }

  private void tool(String name, String context) {
    store.create(BreadcrumbCreate.builder("tool.definition.v1", name).context(RcrtJson.parse(context)).build());
  }

  @Test
  void textGivesNameDescriptionTypedInputsWithRequiredMarksOutputsAndOneExample() {
    BuiltinTools.seed(store);
    ToolPrompt prompt = adapter.adapt(tools());
    assertThat(prompt.text())
        .contains(
            """
            Tool: calculator
            Evaluate an arithmetic expression: + - * / % ^, parentheses, sqrt, pow, abs, log, sin, cos, pi
            Input: expression (string, required): For example (2 + 3) * 4 or sqrt(16)
            Output: result (number), expression (string), formatted (string)
            Example: {"expression":"17 * 23"} → {"result":391,"expression":"17 * 23","formatted":"17 * 23 = 391"}. Read result.result
            """)
        .contains("Input: min (number, default 0); max (number, default 100); count (integer, default 1)")
        .contains("tags (array of string): All must match");
  }

  @Test
  void forFunctionCallingTheTextLeavesTheInputsToTheToolsArray() {
    BuiltinTools.seed(store);
    ToolPrompt prompt = adapter.adaptForFunctionCalling(tools());
    assertThat(prompt.text())
        .contains("Tool: calculator\nEvaluate an arithmetic expression")
        .contains("Output: result (number), expression (string), formatted (string)")
        .doesNotContain("Input:");
    assertThat(prompt.tools().toString()).contains("\"required\":[\"expression\"]");
  }

  @Test
  void toolsArrayIsTheOpenAiFunctionFormWithTheInputSchemaAsParameters() {
    BuiltinTools.seed(store);
    ToolPrompt prompt = adapter.adapt(tools());
    JsonNode calc = null;
    for (JsonNode t : prompt.tools()) {
      assertThat(t.get("type").asText()).isEqualTo("function");
      if (t.at("/function/name").asText().equals("calculator")) {
        calc = t;
      }
    }
    assertThat(prompt.tools()).hasSize(6);
    assertThat(calc.at("/function/description").asText()).startsWith("Evaluate an arithmetic expression");
    assertThat(calc.at("/function/parameters/type").asText()).isEqualTo("object");
    assertThat(calc.at("/function/parameters/properties/expression/type").asText()).isEqualTo("string");
    assertThat(calc.at("/function/parameters/required/0").asText()).isEqualTo("expression");
  }

  @Test
  void namesOpenAiRejectsAreMappedToSafeNamesAndBack() {
    tool("unit.convert v2", "{\"name\":\"unit.convert v2\",\"description\":\"Convert units\"}");
    tool("unit_convert_v2", "{\"name\":\"unit_convert_v2\",\"description\":\"Already safe\"}");
    tool("x".repeat(80), "{\"name\":\"" + "x".repeat(80) + "\",\"description\":\"Long\"}");
    ToolPrompt prompt = adapter.adapt(tools());

    assertThat(prompt.functionToTool())
        .containsEntry("unit_convert_v2", "unit_convert_v2")
        .containsEntry("unit_convert_v2_2", "unit.convert v2")
        .containsEntry("x".repeat(64), "x".repeat(80));
    for (JsonNode t : prompt.tools()) {
      assertThat(t.at("/function/name").asText()).matches("^[a-zA-Z0-9_-]{1,64}$");
    }
    assertThat(prompt.toolFor("unit_convert_v2_2")).contains("unit.convert v2");
    assertThat(prompt.toolFor("nope")).isEmpty();
    assertThat(prompt.text()).contains("Tool: unit_convert_v2_2\nConvert units");
  }

  @Test
  void aSchemaWithoutTypeOrPropertiesGetsThemInParametersButTheToolIsUnchanged() {
    tool("ping", "{\"name\":\"ping\",\"inputSchema\":{\"description\":\"anything\"}}");
    List<ToolDefinition> defs = tools();
    ToolPrompt prompt = adapter.adapt(defs);
    assertThat(RcrtJson.write(prompt.tools().get(0).at("/function/parameters")))
        .isEqualTo("{\"description\":\"anything\",\"type\":\"object\",\"properties\":{}}");
    assertThat(defs.get(0).inputSchema().has("type")).isFalse();
    assertThat(prompt.text()).contains("Input: none");
  }

  @Test
  void noToolsGiveAnEmptyPromptAndAnEmptyToolsArray() {
    ToolPrompt prompt = adapter.adapt(List.of());
    assertThat(prompt.text()).isEmpty();
    assertThat(prompt.tools()).isEmpty();
  }
}
