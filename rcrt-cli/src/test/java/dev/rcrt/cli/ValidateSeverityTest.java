package dev.rcrt.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code validate} on a copy of the layout of RCRT's bootstrap-breadcrumbs folder (our own fixture
 * with its shapes): only the two broken files are errors; what RCRT accepts and uses is at most a
 * named warning.
 */
class ValidateSeverityTest {
  private static final Path LAYOUT = Path.of("src/test/resources/rcrt-layout");

  @TempDir Path copy;

  @Test
  void onlyTheTwoBrokenFilesAreErrorsAndTheRestAreNamedWarnings() {
    CliHarness run = CliHarness.run("validate", LAYOUT.toString());
    List<String> lines = run.out().lines().toList();

    assertThat(run.status).isEqualTo(1);
    assertThat(lines.stream().filter(l -> l.startsWith("error: ")))
        .hasSize(2)
        .anyMatch(l -> l.contains("broken-truncated.json: not valid JSON"))
        .anyMatch(l -> l.contains("broken-comments.json: not valid JSON"));
    assertThat(lines.stream().filter(l -> l.startsWith("warning: ")))
        .anyMatch(l -> l.contains("rcrt-basics.json: /schema_name: unknown schema 'knowledge.v1'"))
        .anyMatch(l -> l.contains("llm_hints mode: unknown value 'transform'") && l.contains("RCRT ignores hints"))
        .anyMatch(l -> l.contains("note-schema.json: /tags: tagged schema:note.v1 but not defines:note.v1"))
        .anyMatch(l -> l.contains("timer.json: /context/code: expected string, found jsonobject (against its schema definition)"))
        .noneMatch(l -> l.contains("default-chat-assistant")) // no model, but an llm_config_id: as RCRT runs it
        .noneMatch(l -> l.contains("reminder.json[0]")); // a datetime field and a 2h TTL are fine
    assertThat(run.err()).contains("skipped " + LAYOUT.resolve("tools/timer/package.json") + ": an npm or TypeScript manifest")
        .contains("8 breadcrumb(s) checked: 2 error(s), 6 warning(s)");
  }

  @Test
  void withoutTheBrokenFilesWarningsPassUnlessStrict() throws Exception {
    copyLayoutWithout("broken-");

    assertThat(CliHarness.run("validate", copy.toString()).status).isZero();
    CliHarness strict = CliHarness.run("validate", "--strict", copy.toString());
    assertThat(strict.status).isEqualTo(1);
    assertThat(strict.err()).contains("0 error(s), 6 warning(s)");
  }

  @Test
  void aDatetimeFieldMustBeADateTimeAndARcrtDurationMustBeOne() throws Exception {
    copyLayoutWithout("broken-");
    Files.writeString(copy.resolve("templates/bad.json"), """
        [{"schema_name":"event.v1","title":"When?","context":{"at":"next tuesday"}},
         {"schema_name":"event.v1","title":"Forever","context":{"at":"2026-11-23T09:30:00Z"},"ttl_type":"duration","ttl_config":{"duration":"2 hours"}}]""");

    CliHarness run = CliHarness.run("validate", copy.toString());

    assertThat(run.out()).contains("bad.json[0]: /context/at: ").contains("(against its schema definition)");
    assertThat(run.out()).contains("error: " + copy.resolve("templates/bad.json") + "[1]: ")
        .contains("ttl_config.duration: '2 hours' is neither an ISO-8601 duration (PT1H), RCRT's 30s/30m/2h/1d, nor a number of seconds");
  }

  private void copyLayoutWithout(String prefix) throws Exception {
    try (Stream<Path> files = Files.walk(LAYOUT)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        if (!f.getFileName().toString().startsWith(prefix)) {
          Path target = copy.resolve(LAYOUT.relativize(f).toString());
          Files.createDirectories(target.getParent());
          Files.copy(f, target);
        }
      }
    }
  }

  @Test
  void aMisspeltFieldIsAWarningNamingTheNearestKnownFieldInValidateAndAtLoad() throws Exception {
    Path file = copy.resolve("typo.json");
    Files.writeString(file, """
        {"schema_name":"tool.code.v1","title":"Shout","tags":["tool"],
         "context":{"name":"shout","description":"Upper-cases text.","input_schema":{"type":"object"},
           "code":{"langauge":"javascript","source":"export async function execute(input){return {text: String(input.text).toUpperCase()};}"},
           "requires_aproval":true,"llm_comment":"RCRT's notes to readers are no fields"}}""");

    CliHarness validate = CliHarness.run("validate", file.toString());
    assertThat(validate.out())
        .contains("warning: " + file + ": /context/code/langauge: unknown field of tool.code.v1 code, which nothing reads; did you mean 'language'?")
        .contains("/context/requires_aproval: unknown field of tool.code.v1, which nothing reads; did you mean 'requires_approval'?")
        .doesNotContain("llm_comment");
    assertThat(validate.status).as("warnings only").isZero();
    assertThat(CliHarness.run("validate", "--strict", file.toString()).status).isEqualTo(1);

    CliHarness listed = CliHarness.run("tools", "list", "--breadcrumbs", file.toString());
    assertThat(listed.err()).contains("warning: " + file + ": /context/code/langauge").contains("did you mean 'language'?");
  }

  @Test
  void toolsListMarksAToolThatCannotRunHereAndItNeverDisplacesARunnableOneOfTheSameName() throws Exception {
    Path file = copy.resolve("wasm.json");
    Files.writeString(file, """
        [{"schema_name":"tool.v1","title":"Calculator in WebAssembly","tags":["tool"],
          "context":{"name":"calculator","description":"A calculator compiled to wasm.","implementation":{"type":"wasm","module":"calc.wasm"}}},
         {"schema_name":"tool.v1","title":"Resize","tags":["tool"],
          "context":{"name":"resize","description":"Resizes images.","implementation":{"type":"wasm","module":"resize.wasm"}}}]""");

    CliHarness listed = CliHarness.run("tools", "list", "--breadcrumbs", file.toString());
    assertThat(listed.status).isZero();
    assertThat(listed.out().lines()).anyMatch(l -> l.startsWith("calculator ") && l.contains("builtin") && !l.contains("cannot run"))
        .anyMatch(l -> l.startsWith("resize ") && l.contains("[cannot run here: tool 'resize' has implementation type 'wasm'"));
    CliHarness called = CliHarness.run("tool", "call", "calculator", "{\"expression\":\"6*7\"}", "--breadcrumbs", file.toString());
    assertThat(called.status).as(called.err()).isZero();
    assertThat(called.out()).contains("42");
    CliHarness validate = CliHarness.run("validate", file.toString());
    assertThat(validate.status).isEqualTo(1);
    assertThat(validate.out()).contains("error: ").contains("implementation type 'wasm', which this runner cannot run");
  }

  @Test
  void rcrtVisualBuilderToolsThatCannotRunHereAreFlaggedNotOfferedAndDisplaceNothing() throws Exception {
    // shaped as rcrt-visual-builder/packages/tools/src/*/definition.json: builtin tools of RCRT's Node.js tools-runner
    Path file = copy.resolve("visual-builder.json");
    Files.writeString(file, """
        [{"schema_name":"tool.v1","title":"Workflow Executor","tags":["tool","tool:workflow","workspace:tools"],
          "context":{"name":"workflow","description":"Run tools in sequence.","implementation":{"type":"builtin","runtime":"nodejs",
            "module":"@rcrt-builder/tools","export":"builtinTools.workflow","instantiate":false},
            "definition":{"inputSchema":{"type":"object"}}}},
         {"schema_name":"tool.v1","title":"Random Number Generator","tags":["tool","tool:random","workspace:tools"],
          "context":{"name":"random","description":"Generate random numbers.","implementation":{"type":"builtin","runtime":"nodejs",
            "module":"@rcrt-builder/tools","export":"builtinTools.random","instantiate":false},
            "definition":{"inputSchema":{"type":"object","properties":{"min":{"type":"number"},"max":{"type":"number"}}},
              "outputSchema":{"type":"object","properties":{"picked":{"type":"any"}}}}}}]""");

    CliHarness validate = CliHarness.run("validate", file.toString());
    assertThat(validate.status).isEqualTo(1);
    assertThat(validate.out()).contains("no handler named 'workflow' is registered with this runner")
        .contains("module '@rcrt-builder/tools' is code of another runtime (RCRT's Node.js tools-runner)")
        .contains("tool 'random' output_schema: not a valid JSON Schema");

    CliHarness listed = CliHarness.run("tools", "list", "--breadcrumbs", file.toString());
    assertThat(listed.out().lines()).anyMatch(l -> l.startsWith("workflow ") && l.contains("[cannot run here: tool 'workflow' is builtin"))
        .anyMatch(l -> l.startsWith("random ") && !l.contains("cannot run"));
    CliHarness random = CliHarness.run("tool", "call", "random", "{\"min\":1,\"max\":1}", "--breadcrumbs", file.toString());
    assertThat(random.status).as("the working builtin random still answers: " + random.err()).isZero();

    CliHarness prompt = CliHarness.run("tools", "prompt", "--breadcrumbs", file.toString(), "hello");
    assertThat(prompt.status).as(prompt.err()).isZero();
    assertThat(prompt.out()).as("the model is not offered a tool every call of which fails").doesNotContain("\"workflow\"")
        .contains("\"random\"");
  }
}
