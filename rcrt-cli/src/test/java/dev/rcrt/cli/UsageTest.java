package dev.rcrt.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Help at every level, and exit 2 with the usage for every usage error. */
class UsageTest {
  @TempDir Path dir;

  @Test
  void bareRcrtListsTheCommandsOnStderrAndExitsTwo() {
    CliHarness run = CliHarness.run();
    assertThat(run.status).isEqualTo(2);
    assertThat(run.err()).contains("Commands:").contains("chat").contains("tools").contains("validate").contains("help");
    assertThat(run.out()).isEmpty();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "help|Commands:",
      "--help|Commands:",
      "-h|Commands:",
      "help chat|--max-rounds",
      "chat --help|--max-rounds",
      "tools -h|prompt",
      "tools help list|--breadcrumbs",
      "tools list --help|--breadcrumbs",
      "tool call -h|Run one tool through the ToolRunner",
      "tool help call|Run one tool through the ToolRunner",
      "runner --help|--concurrency",
      "search --help|--selector",
      "validate -h|PATH",
      "view --help|ID"})
  void helpWorksAtEveryLevelOnStdoutWithExitZero(String args, String shows) {
    CliHarness run = CliHarness.run(args.split(" "));
    assertThat(run.status).as(run.err()).isZero();
    assertThat(run.out()).startsWith("Usage: rcrt").contains(shows);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "search --selector nojson|Invalid value for option '--selector': not valid JSON",
      "search --selector [1]|selector: expected a JSON object",
      "search --selector {} --limit 0|--limit must be at least 1, found 0",
      "tool call calculator nojson|Invalid value for positional parameter at index 1 (JSON): not valid JSON",
      "tool call calculator {} --breadcrumbs /no/such/path|no such file or directory: /no/such/path",
      "chat --allow-network notcidr hi|Invalid value for option '--allow-network'",
      "chat --max-rounds 0 hi|--max-rounds must be at least 1",
      "chat --base-url localhost:11434 hi|has no http:// or https:// scheme",
      "validate /no/such/path|no such file or directory: /no/such/path",
      "chat --frobnicate hi|Unknown option: '--frobnicate'",
      "runner|a runner needs a store other processes share",
      "runner --store postgresql://h/db --concurrency 0|--concurrency must be at least 1",
      "chat --tool-mode sideways hi|expected direct or event",
      "search --store ftp://h/db --selector {}|the scheme must be postgresql://",
      "search --selector {} --nn 5|--nn counts the neighbours of --query TEXT",
      "search --query rain --limit 5|--limit caps a selector search",
      "chat --trace-content hi|--trace-content needs --trace FILE",
      "chat --no-wait hi|--no-wait needs a store other processes share",
      "runner --store postgresql://h/db --no-tools|--no-tools leaves nothing to do without --agents"})
  void everyUsageErrorExitsTwoSayingWhatAndWhichHelpToRead(String args, String says) {
    CliHarness run = CliHarness.run(args.split(" "));
    assertThat(run.status).as(run.err()).isEqualTo(2);
    String command = args.startsWith("tool call") ? "tool call" : args.split(" ")[0];
    assertThat(run.err()).contains(says).endsWith("Run './rcrt " + command + " --help' for its usage." + System.lineSeparator())
        .doesNotContain("Usage:");
  }

  @Test
  void aCommandGroupWithoutItsSubcommandShowsItsUsage() {
    CliHarness run = CliHarness.run("tools");
    assertThat(run.status).isEqualTo(2);
    assertThat(run.err()).contains("Usage: rcrt tools").contains("list");
  }

  @Test
  void anUnknownCommandExitsTwoSuggestingTheNearest() {
    CliHarness run = CliHarness.run("valdate", "x.json");
    assertThat(run.status).isEqualTo(2);
    assertThat(run.err()).contains("Unmatched arguments from index 0: 'valdate'").contains("Did you mean: rcrt validate")
        .contains("Run './rcrt --help' for its usage.");
  }

  @Test
  void validateReportsTheToolThatToolCallWouldRejectWithTheSameMessage() throws Exception {
    Path file = dir.resolve("tools.json");
    Files.writeString(file, """
        {"schema_name":"tool.v1","title":"Weather","tags":["tool"],
         "context":{"name":"weather","description":"Weather.","input_schema":{"type":"object"},"implementation":{"type":"http"}}}""");

    CliHarness validate = CliHarness.run("validate", file.toString());
    CliHarness call = CliHarness.run("tool", "call", "weather", "{}", "--breadcrumbs", file.toString());

    String why = "tool 'weather' implementation: endpoint: required, found none";
    assertThat(validate.status).isEqualTo(1);
    assertThat(validate.out()).contains(why);
    assertThat(call.status).isEqualTo(1);
    assertThat(call.err()).contains(why);
  }

  @Test
  void toolCallsUsageShowsItsInputAsOptionalAndItDefaultsToAnEmptyObject() {
    CliHarness help = CliHarness.run("tool", "call", "--help");
    assertThat(help.status).isZero();
    assertThat(help.out()).contains("NAME [JSON]");

    CliHarness call = CliHarness.run("tool", "call", "random");
    assertThat(call.status).as(call.err()).isZero();
    assertThat(call.out()).contains("numbers");
  }

  @Test
  void everyCommandListShowsWholeSentences() {
    for (String[] group : new String[][] {{"--help"}, {"tools", "--help"}, {"tool", "--help"}, {"runs", "--help"}, {"mcp", "--help"}}) {
      CliHarness help = CliHarness.run(group);
      String commands = help.out().substring(help.out().indexOf("Commands:") + "Commands:".length());
      // an entry is a line starting with two spaces and a name, continued by more deeply indented lines
      List<String> entries = new java.util.ArrayList<>();
      for (String line : commands.lines().toList()) {
        if (line.matches("^  \\S.*")) {
          entries.add(line.strip());
        } else if (!line.isBlank() && !entries.isEmpty()) {
          entries.set(entries.size() - 1, entries.get(entries.size() - 1) + " " + line.strip());
        }
      }
      assertThat(entries).as(String.join(" ", group)).isNotEmpty().allSatisfy(e -> {
        assertThat(e).endsWith(".");
        assertThat(e.chars().filter(c -> c == '(').count()).as(e).isEqualTo(e.chars().filter(c -> c == ')').count());
      });
    }
  }

  @Test
  void descriptionsWrapOnlyAtTheUsageWidthNotWhereTheSourceLinesBroke() {
    String before = System.getProperty("picocli.usage.width");
    System.setProperty("picocli.usage.width", "400");
    try {
      CliHarness help = CliHarness.run("mcp", "call", "--help");
      assertThat(help.out()).contains(
          "Call one tool of an MCP server and print its result: the structuredContent as JSON when the tool gives one, else its text.");
      assertThat(help.out()).contains("\nForms: mcp call SERVER TOOL [JSON], or mcp call --tool TOOL [--input JSON] SERVER");
    } finally {
      if (before == null) {
        System.clearProperty("picocli.usage.width");
      } else {
        System.setProperty("picocli.usage.width", before);
      }
    }
  }

  @Test
  void paragraphsJoinSourceLinesAndBreakAfterASentenceBeforeACapital() {
    assertThat(Main.paragraphs(new String[] {"One sentence that goes", "on here. and continues.", "Next paragraph", "", "third"}))
        .containsExactly("One sentence that goes on here. and continues.", "Next paragraph", "third");
  }

  @Test
  void aRefusalOnTheCommandLineNamesTheFlagThatAllowsIt() throws Exception {
    Path file = dir.resolve("local.json");
    Files.writeString(file, """
        [{"schema_name":"tool.v1","title":"Local","tags":["tool"],
          "context":{"name":"local","description":"A local service.","input_schema":{"type":"object"},
                     "implementation":{"type":"http","endpoint":"http://127.0.0.1:9/x"}}},
         {"schema_name":"tool.v1","title":"Boxed","tags":["tool"],
          "context":{"name":"boxed","description":"A container.","input_schema":{"type":"object"},
                     "implementation":{"type":"container","image":"acme/boxed:1","mode":"stdio"}}}]""");

    CliHarness local = CliHarness.run("tool", "call", "local", "--breadcrumbs", file.toString());
    CliHarness boxed = CliHarness.run("tool", "call", "boxed", "--breadcrumbs", file.toString());

    assertThat(local.status).isEqualTo(1);
    assertThat(local.err()).contains("--allow-network 127.0.0.1/32").doesNotContain("ToolTrustPolicy");
    assertThat(boxed.status).isEqualTo(1);
    assertThat(boxed.err()).contains("--allow-image acme/boxed:1").doesNotContain("ToolTrustPolicy");
  }

  @Test
  void aStoreThatRefusesTheConnectionIsOneReadableLineWithoutThePassword() {
    CliHarness search = CliHarness.run("search", "--selector", "{}", "--store", "postgresql://nobody:sekret-4471@127.0.0.1:1/nodb");

    assertThat(search.status).isEqualTo(1);
    assertThat(search.err().strip().lines().toList()).hasSize(1).first().asString()
        .contains("cannot connect to the store postgresql://nobody:***@127.0.0.1:1/nodb: Connection refused")
        .contains("start PostgreSQL")
        .doesNotContain("HikariPool").doesNotContain("Exception").doesNotContain("sekret-4471");
  }

  @Test
  void verboseAfterTheSubcommandPrintsTheStackTraceAsBeforeIt() {
    CliHarness after = CliHarness.run("view", "no-such-id", "-v");
    CliHarness before = CliHarness.run("-v", "view", "no-such-id");
    CliHarness plain = CliHarness.run("view", "no-such-id");

    assertThat(after.err()).contains("no breadcrumb with id 'no-such-id'").contains("\tat ");
    assertThat(before.err()).contains("\tat ");
    assertThat(plain.err()).contains("no breadcrumb with id 'no-such-id'").doesNotContain("\tat ");
  }
}
