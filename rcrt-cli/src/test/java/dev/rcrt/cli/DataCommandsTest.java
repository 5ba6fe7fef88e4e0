package dev.rcrt.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.RcrtJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code view}, {@code search} and {@code validate} on RCRT bootstrap-format files, loaded as they are. */
class DataCommandsTest {
  static final String BOOTSTRAP = Path.of("src/test/resources/bootstrap").toString();

  @TempDir Path dir;

  @Test
  void viewAppliesTheSchemaDefinitionsTopLevelHintsToAToolCodeRecord() {
    CliHarness search = CliHarness.run("search", "--selector", "{\"schema_name\":\"tool.code.v1\"}", "--breadcrumbs", BOOTSTRAP);
    String id = RcrtJson.parse(search.out().lines().findFirst().orElseThrow()).get("id").asText();

    CliHarness run = CliHarness.run("view", id, "--breadcrumbs", BOOTSTRAP);

    assertThat(run.status).as(run.err()).isZero();
    JsonNode context = RcrtJson.parse(run.out()).get("context");
    assertThat(context.fieldNames()).toIterable().containsExactly("name", "description", "input_schema", "output_schema", "examples");
    assertThat(run.out()).doesNotContain("export async function").doesNotContain("memory_mb");
  }

  @Test
  void viewAppliesHintsFromTheDefinitionsContextToo() {
    CliHarness run = CliHarness.run("view", "note-milk", "--breadcrumbs", BOOTSTRAP);
    assertThat(RcrtJson.write(RcrtJson.parse(run.out()).get("context"))).isEqualTo("{\"summary\":\"Groceries: milk\"}");
  }

  @Test
  void viewOfARecordWhoseJqHintLoopsForeverExitsOneWithOneLine() throws Exception {
    Path file = dir.resolve("loop.json");
    Files.writeString(file, """
        {"id":"note-loop","schema_name":"note.v1","title":"n","context":{"a":1},
         "llm_hints":{"transform":{"x":{"type":"jq","query":"def f: f; f"}}}}
        """);
    CliHarness run = CliHarness.run("view", "note-loop", "--breadcrumbs", file.toString());
    assertThat(run.status).isEqualTo(1);
    assertThat(run.out()).isEmpty();
    assertThat(run.err().strip())
        .isEqualTo("rcrt: breadcrumb 'note-loop' (note.v1) llm_hints transform 'x' recursed without end and was stopped");
  }

  @Test
  void viewOfAnUnknownIdFails() {
    CliHarness run = CliHarness.run("view", "nope", "--breadcrumbs", BOOTSTRAP);
    assertThat(run.status).isEqualTo(1);
    assertThat(run.err()).contains("no breadcrumb with id 'nope'");
  }

  @Test
  void searchPrintsJsonLinesNewestFirst() {
    CliHarness run = CliHarness.run("search", "--selector", "{\"schema_name\":\"note.v1\",\"context_match\":[{\"path\":\"$.text\",\"op\":\"contains\",\"value\":\"\"}]}", "--breadcrumbs", BOOTSTRAP);
    List<String> ids = run.out().lines().map(l -> RcrtJson.parse(l).get("id").asText()).toList();
    assertThat(ids).containsExactly("note-call", "note-milk");
  }

  @Test
  void aMalformedSelectorIsAUsageErrorNamingTheProblem() {
    CliHarness run = CliHarness.run("search", "--selector", "{\"context_match\":[{\"path\":\"$.a\",\"op\":\"like\",\"value\":1}]}");
    assertThat(run.status).isEqualTo(2);
    assertThat(run.err()).contains("context_match op: unknown value 'like'");
  }

  @Test
  void validatePassesTheBootstrapFiles() {
    CliHarness run = CliHarness.run("validate", BOOTSTRAP);
    assertThat(run.out()).isEmpty();
    assertThat(run.status).isZero();
    assertThat(run.err()).contains("6 breadcrumb(s) checked: 0 error(s), 0 warning(s)");
  }

  @Test
  void validateNamesTheRightElementAfterABadOneAndReportsIdsRepeatedAcrossFiles() throws Exception {
    Files.writeString(dir.resolve("a.json"), "[5, {\"schema_name\":\"mystery.v1\",\"title\":\"second\",\"id\":\"same\"}]");
    Files.writeString(dir.resolve("b.json"), "{\"schema_name\":\"note.v1\",\"title\":\"again\",\"id\":\"same\"}");
    CliHarness run = CliHarness.run("validate", dir.toString());
    String a = dir.resolve("a.json").toString();
    assertThat(run.status).isEqualTo(1);
    assertThat(run.out()).contains(a + "[0]: expected a breadcrumb object, found NUMBER");
    assertThat(run.out()).contains(a + "[1]: /schema_name: unknown schema 'mystery.v1'");
    assertThat(run.out()).contains(dir.resolve("b.json") + ": duplicate id 'same' (first loaded from " + a + ")");
  }

  @Test
  void validateReportsEachProblemWithFileAndPointerAndExitsOne() throws Exception {
    Files.writeString(dir.resolve("broken.json"), "{ \"schema_name\": ");
    Files.writeString(dir.resolve("records.json"), """
        [{"schema_name":"mystery.v1","title":"Unknown"},
         {"schema_name":"tool.definition.v1","title":"Bad example","context":{"name":"adder",
           "inputSchema":{"type":"object","properties":{"n":{"type":"number"}}},
           "examples":[{"input":{"n":"one"}}]}},
         {"schema_name":"agent.def.v1","title":"No model","context":{"system_prompt":"p"}},
         {"schema_name":"note.v1","title":"Wrong type","context":{"text":5}},
         {"schema_name":"schema.def.v1","title":"Bad hints","tags":["defines:note.v1"],"context":{"field_definitions":{"text":{"type":"string"}}},
          "llm_hints":{"transform":{"x":{"type":"regex"}}}}]
        """);
    CliHarness run = CliHarness.run("validate", dir.toString());
    String out = run.out();
    String records = dir.resolve("records.json").toString();

    assertThat(run.status).isEqualTo(1);
    assertThat(out).contains(dir.resolve("broken.json") + ": not valid JSON");
    assertThat(out).contains(records + "[0]: /schema_name: unknown schema 'mystery.v1'; add a schema.def.v1 tagged defines:mystery.v1");
    assertThat(out).contains(records + "[1]: tool 'adder' example 1 input /n: expected number, found string");
    assertThat(out).contains("warning: " + records + "[2]: agent definition has no context/model and no context/llm_config_id");
    assertThat(out).contains(records + "[3]: /context/text: expected string, found integer (against its schema definition)");
    assertThat(out).contains(records + "[4]: breadcrumb").contains("(schema.def.v1) llm_hints transform 'x': unknown type 'regex'");
  }
}
