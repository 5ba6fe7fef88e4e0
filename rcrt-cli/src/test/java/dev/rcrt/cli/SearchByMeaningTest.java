package dev.rcrt.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.postgres.TestPostgres;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Search by meaning from the command line, with RCRT's own model in process and no setup: the
 * builtin breadcrumb-search's query mode, search --query, and an agent's vector context selector,
 * on the default store and on PostgreSQL, over the repository's examples/knowledge.
 */
class SearchByMeaningTest {
  private static final String KNOWLEDGE = "../examples/knowledge";

  private static List<String> titles(String toolOutput) {
    JsonNode out = RcrtJson.parse(toolOutput);
    assertThat(out.path("method").asText()).isEqualTo("vector");
    return java.util.stream.StreamSupport.stream(out.path("breadcrumbs").spliterator(), false).map(b -> b.path("title").asText()).toList();
  }

  @Test
  void breadcrumbSearchFindsTheRecordsAboutCreatingAgentsFirstInTheDefaultStore() {
    CliHarness call = CliHarness.run("tool", "call", "breadcrumb-search", "{\"query\": \"how to create an agent\", \"nn\": 3}", "--breadcrumbs", KNOWLEDGE);

    assertThat(call.status).as(call.err()).isZero();
    assertThat(titles(call.out())).hasSize(3).first().isEqualTo("Defining an agent");
    assertThat(call.err()).doesNotContain("WARN");
  }

  @Test
  void theSameOnPostgres() {
    String url = TestPostgres.storeUrl(TestPostgres.freshSchema());
    CliHarness call = CliHarness.run("tool", "call", "breadcrumb-search", "{\"query\": \"how to create an agent\", \"nn\": 3}",
        "--breadcrumbs", KNOWLEDGE, "--store", url);
    assertThat(call.status).as(call.err()).isZero();
    assertThat(titles(call.out())).first().isEqualTo("Defining an agent");

    // a later process on the same store answers from the vectors in the table
    CliHarness later = CliHarness.run("search", "--query", "it keeps raining", "--nn", "1", "--store", url);
    assertThat(later.status).as(later.err()).isZero();
    assertThat(RcrtJson.parse(later.out().strip()).path("title").asText()).isEqualTo("Notes: the weather in Bergen");
  }

  @Test
  void searchQueryPrintsTheNearestAsJsonLinesAndKeepsToTheSelector() {
    CliHarness search = CliHarness.run("search", "--query", "umbrella weather", "--nn", "2", "--selector", "{\"schema_name\":\"knowledge.v1\"}",
        "--breadcrumbs", KNOWLEDGE);

    assertThat(search.status).as(search.err()).isZero();
    List<JsonNode> lines = search.out().lines().map(RcrtJson::parse).toList();
    assertThat(lines).hasSize(2).allSatisfy(b -> assertThat(b.path("schema_name").asText()).isEqualTo("knowledge.v1"));
    assertThat(lines.get(0).path("title").asText()).isEqualTo("Notes: the weather in Bergen");
  }

  @Test
  void anAgentsVectorContextSelectorPutsTheNearestRecordsInItsPrompt() {
    CliHarness prompt = CliHarness.run("tools", "prompt", "--breadcrumbs", KNOWLEDGE, "--agent", "librarian", "How do I make a new agent?");

    assertThat(prompt.status).as(prompt.err()).isZero();
    String section = prompt.out().substring(prompt.out().indexOf("=== KNOWLEDGE ==="));
    assertThat(section.lines().filter(l -> l.startsWith("- ")).limit(3).toList())
        .hasSize(3).first().asString().startsWith("- Defining an agent:");
    assertThat(section).doesNotContain("weather in Bergen");
  }

  @Test
  void aBlankQueryIsAUsageError() {
    CliHarness search = CliHarness.run("search", "--query", " ");
    assertThat(search.status).isEqualTo(2);
    assertThat(search.err()).contains("--query must not be blank");
  }
}
