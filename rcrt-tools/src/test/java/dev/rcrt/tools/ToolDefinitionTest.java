package dev.rcrt.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ToolDefinitionTest {
  private final InMemoryBreadcrumbStore store = new InMemoryBreadcrumbStore();

  private Breadcrumb stored(String schema, String context) {
    return store.create(BreadcrumbCreate.builder(schema, "T").context(RcrtJson.parse(context)).build());
  }

  @Test
  void readsToolV1WithImplementationAndNestedDefinition() {
    ToolDefinition def =
        ToolDefinition.fromBreadcrumb(
            stored(
                "tool.v1",
                """
                {"name":"pdf-generator","version":"2.0.0",
                 "implementation":{"type":"Module","module":"@company/pdf-tools","export":"generatePDF","version":"2.0.0"},
                 "definition":{"inputSchema":{"type":"object","properties":{"html":{"type":"string"}},"required":["html"]},
                               "outputSchema":{"type":"object","properties":{"pages":{"type":"number"}}}}}
                """));
    assertThat(def.name()).isEqualTo("pdf-generator");
    assertThat(def.version()).isEqualTo("2.0.0");
    assertThat(def.implementation().type()).isEqualTo("module");
    assertThat(def.implementation().text("export", "")).isEqualTo("generatePDF");
    assertThat(def.inputSchema().at("/required/0").asText()).isEqualTo("html");
    assertThat(def.outputSchema().at("/properties/pages/type").asText()).isEqualTo("number");
    assertThat(def.description()).isEqualTo("T");
    assertThat(def.schemaName()).isEqualTo("tool.v1");
  }

  @Test
  void readsToolDefinitionV1AsABuiltinWithExamplesAndCategory() {
    ToolDefinition def =
        ToolDefinition.fromBreadcrumb(
            stored(
                "tool.definition.v1",
                """
                {"name":"random","description":"Generate random numbers","category":"general",
                 "inputSchema":{"type":"object","properties":{"min":{"type":"number"}}},
                 "outputSchema":{"type":"object","properties":{"numbers":{"type":"array"}}},
                 "capabilities":{"timeout":1500},
                 "examples":[{"description":"one","input":{"min":1},"output":{"numbers":[7]},"usage":"result.numbers[0]"}]}
                """));
    assertThat(def.implementation().type()).isEqualTo("builtin");
    assertThat(def.category()).isEqualTo("general");
    assertThat(def.description()).isEqualTo("Generate random numbers");
    assertThat(def.timeout()).isEqualTo(Duration.ofMillis(1500));
    assertThat(def.examples()).singleElement().satisfies(e -> {
      assertThat(e.explanation()).isEqualTo("result.numbers[0]");
      assertThat(e.output().at("/numbers/0").asInt()).isEqualTo(7);
    });
  }

  @Test
  void readsRcrtToolCodeV1WithSnakeCaseSchemasAndInlineCode() {
    ToolDefinition def =
        ToolDefinition.fromBreadcrumb(
            stored(
                "tool.code.v1",
                """
                {"name":"calc","description":"Math",
                 "code":{"language":"typescript","source":"export async function execute(input, context) { return {}; }"},
                 "input_schema":{"type":"object","properties":{"expression":{"type":"string"}}},
                 "output_schema":{"type":"object"},
                 "permissions":{"net":false},"limits":{"timeout_ms":2000,"memory_mb":64},
                 "examples":[{"description":"d","input":{},"output":{},"explanation":"x"}]}
                """));
    assertThat(def.implementation().type()).isEqualTo("breadcrumb");
    assertThat(def.implementation().text("language", "")).isEqualTo("typescript");
    assertThat(def.inputSchema().at("/properties/expression/type").asText()).isEqualTo("string");
    assertThat(def.timeout()).isEqualTo(Duration.ofMillis(2000));
    assertThat(def.examples()).hasSize(1);
  }

  @Test
  void aToolWithoutInputSchemaTakesAnyObject() {
    ToolDefinition def = ToolDefinition.fromBreadcrumb(stored("tool.definition.v1", "{\"name\":\"ping\"}"));
    assertThat(RcrtJson.write(def.inputSchema())).isEqualTo("{\"type\":\"object\"}");
    assertThat(def.outputSchema()).isNull();
  }

  @Test
  void aMissingNameIsAValidationErrorNamingTheBreadcrumb() {
    Breadcrumb b = stored("tool.v1", "{\"implementation\":{\"type\":\"http\"}}");
    assertThatThrownBy(() -> ToolDefinition.fromBreadcrumb(b))
        .isInstanceOf(ValidationException.class)
        .hasMessage("tool breadcrumb '" + b.id() + "' (tool.v1) context/name: required, found none");
  }

  @Test
  void aSchemaThatIsNotAnObjectIsAValidationError() {
    Breadcrumb b = stored("tool.definition.v1", "{\"name\":\"x\",\"inputSchema\":\"string\"}");
    assertThatThrownBy(() -> ToolDefinition.fromBreadcrumb(b))
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("tool 'x'")
        .hasMessageContaining("context/inputSchema: expected a JSON Schema object, found STRING");
  }

  @Test
  void toolV1RequiresAnImplementationAndToolCodeV1RequiresCode() {
    assertThatThrownBy(() -> ToolDefinition.fromBreadcrumb(stored("tool.v1", "{\"name\":\"x\"}")))
        .hasMessageContaining("context/implementation: required for tool.v1");
    assertThatThrownBy(() -> ToolDefinition.fromBreadcrumb(stored("tool.code.v1", "{\"name\":\"x\"}")))
        .hasMessageContaining("context/code: expected object {language, source}");
  }

  @Test
  void aNonToolSchemaIsRejected() {
    assertThatThrownBy(() -> ToolDefinition.fromBreadcrumb(stored("note.v1", "{\"name\":\"x\"}")))
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("is not one of [tool.code.v1, tool.v1, tool.definition.v1]");
  }
}
