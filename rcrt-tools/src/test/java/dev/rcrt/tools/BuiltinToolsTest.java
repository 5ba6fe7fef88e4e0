package dev.rcrt.tools;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BuiltinToolsTest {
  private final InMemoryBreadcrumbStore store = new InMemoryBreadcrumbStore();
  private final ToolRunner runner = ToolRunner.builder(store).build();

  {
    BuiltinTools.seed(store);
  }

  @AfterEach
  void close() {
    runner.close();
  }

  private ToolResponse call(String tool, String input) {
    return runner.call(ToolRequest.of(tool, RcrtJson.parse(input), "agent-x"));
  }

  private JsonNode ok(String tool, String input) {
    ToolResponse r = call(tool, input);
    assertThat(r.error()).isNull();
    return r.output();
  }

  @Test
  void seedingWritesOneDiscoverableDefinitionPerHandlerAndIsIdempotent() {
    BuiltinTools.seed(store);
    List<ToolDefinition> tools = new ToolDiscovery(store).discover().items();
    assertThat(tools).extracting(ToolDefinition::name)
        .containsExactly("breadcrumb-create", "breadcrumb-search", "calculator", "echo", "random", "timer");
    assertThat(store.get("tool-def-random")).isPresent();
    assertThat(store.size()).isEqualTo(6);
  }

  @Test
  void everyBundledExampleSatisfiesItsOwnSchemas() {
    for (ToolDefinition def : new ToolDiscovery(store).discover().items()) {
      var in = dev.rcrt.core.JsonSchema.compile(def.inputSchema());
      var out = dev.rcrt.core.JsonSchema.compile(def.outputSchema());
      for (ToolExample e : def.examples()) {
        assertThat(in.violations(e.input())).as(def.name() + " example input").isEmpty();
        assertThat(out.violations(e.output())).as(def.name() + " example output").isEmpty();
      }
    }
  }

  @Test
  void echoReturnsTheMessage() {
    assertThat(ok("echo", "{\"message\":\"hi there\"}").get("echo").asText()).isEqualTo("hi there");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "17 * 23|391|17 * 23 = 391",
        "(2 + 3) * 4|20|(2 + 3) * 4 = 20",
        "sqrt(16) + pow(2, 3)|12|sqrt(16) + pow(2, 3) = 12",
        "10 / 4|2.5|10 / 4 = 2.5",
        "2 ^ 10|1024|2 ^ 10 = 1024",
        "7 × 6|42|7 × 6 = 42"
      })
  void calculatorEvaluatesArithmetic(String expression, String result, String formatted) {
    JsonNode out = ok("calculator", "{\"expression\":\"" + expression + "\"}");
    assertThat(out.get("result").decimalValue()).isEqualByComparingTo(result);
    assertThat(out.get("expression").asText()).isEqualTo(expression);
    assertThat(out.get("formatted").asText()).isEqualTo(formatted);
  }

  @Test
  void calculatorRefusesAnythingThatIsNotArithmetic() {
    ToolResponse r = call("calculator", "{\"expression\":\"java.lang.System.exit(1)\"}");
    assertThat(r.success()).isFalse();
    assertThat(r.error()).startsWith("calculator cannot evaluate 'java.lang.System.exit(1)'");
  }

  @Test
  void calculatorReportsDivisionByZero() {
    ToolResponse r = call("calculator", "{\"expression\":\"1 / 0\"}");
    assertThat(r.success()).isFalse();
    assertThat(r.error()).contains("1 / 0");
  }

  @Test
  void randomDrawsTheRequestedCountOfWholeNumbersWithinBounds() {
    JsonNode numbers = ok("random", "{\"min\":5,\"max\":7,\"count\":200}").get("numbers");
    assertThat(numbers).hasSize(200);
    numbers.forEach(n -> assertThat(n.asLong()).isBetween(5L, 7L));
    java.util.Set<Long> distinct = new java.util.HashSet<>();
    numbers.forEach(n -> distinct.add(n.asLong()));
    assertThat(distinct).containsExactlyInAnyOrder(5L, 6L, 7L);
  }

  @Test
  void randomDefaultsToOneNumberFromZeroToAHundred() {
    JsonNode numbers = ok("random", "{}").get("numbers");
    assertThat(numbers).hasSize(1);
    assertThat(numbers.get(0).asLong()).isBetween(0L, 100L);
  }

  @Test
  void randomWithMinAboveMaxSaysSo() {
    assertThat(call("random", "{\"min\":10,\"max\":1}").error()).contains("min (10) is greater than max (1)");
  }

  @Test
  void timerRefusesMoreThanSixtySecondsBySchema() {
    ToolResponse r = call("timer", "{\"seconds\":61}");
    assertThat(r.errorCode()).isEqualTo("tool_input_invalid");
    assertThat(r.error()).isEqualTo("tool 'timer' input /seconds: 61 is not less or equal to 60");
  }

  @Test
  void timerOfZeroSecondsAnswersAtOnce() {
    JsonNode out = ok("timer", "{\"seconds\":0}");
    assertThat(out.get("message").asText()).isEqualTo("Waited 0 seconds");
  }

  @Test
  void breadcrumbCreateAndSearchActOnTheRequestStore() {
    JsonNode created = ok("breadcrumb-create",
        "{\"schema_name\":\"note.v1\",\"title\":\"Groceries\",\"tags\":[\"list\"],\"context\":{\"text\":\"milk\"}}");
    Breadcrumb stored = store.get(created.get("id").asText()).orElseThrow();
    assertThat(created.get("version").asInt()).isEqualTo(1);
    assertThat(stored.createdBy()).isEqualTo("tool:breadcrumb-create");
    assertThat(stored.context().get("text").asText()).isEqualTo("milk");

    JsonNode found = ok("breadcrumb-search", "{\"schema_name\":\"note.v1\",\"tag\":\"list\"}").get("breadcrumbs");
    assertThat(found).hasSize(1);
    assertThat(found.get(0).get("title").asText()).isEqualTo("Groceries");
    assertThat(found.get(0).at("/context/text").asText()).isEqualTo("milk");
  }

  @Test
  void breadcrumbSearchNeverReturnsTheContextOfSecretRecords() {
    store.create(dev.rcrt.core.BreadcrumbCreate.builder("cred.v1", "Key")
        .context(RcrtJson.parse("{\"key\":\"hunter2\"}")).sensitivity(dev.rcrt.core.Sensitivity.SECRET).build());
    JsonNode found = ok("breadcrumb-search", "{\"schema_name\":\"cred.v1\"}").get("breadcrumbs");
    assertThat(found.get(0).has("context")).isFalse();
    assertThat(RcrtJson.write(found)).doesNotContain("hunter2");
  }

  @Test
  void breadcrumbSearchReturnsNoValueOfRcrtsSecretSchemaOrItsLookalikes() {
    String[] schemas = {"secret.v1", "secrets.v1", "secret.v2", "Secret.V1", "app.secret.v1", "credentials.v1", "password.v1", "api_key.v1",
        "oauth.token.v1", "github_tokens.v1", "ssh.private_key.v1", "aws.access-key.v1", "unix.passwd.v1"};
    for (int i = 0; i < schemas.length; i++) {
      store.create(dev.rcrt.core.BreadcrumbCreate.builder(schemas[i], "Key " + i).tags("vault")
          .context(RcrtJson.parse("{\"name\":\"OPENAI_API_KEY\",\"value\":\"sk-leak-" + i + "\"}")).build());
    }
    store.create(dev.rcrt.core.BreadcrumbCreate.builder("secretary.v1", "Not a secret").tags("vault")
        .context(RcrtJson.parse("{\"desk\":\"front\"}")).build());
    for (String schema : schemas) {
      assertThat(RcrtJson.write(ok("breadcrumb-search", "{\"schema_name\":\"" + schema + "\"}"))).as(schema).doesNotContain("sk-leak-");
    }
    JsonNode all = ok("breadcrumb-search", "{\"tag\":\"vault\",\"limit\":50}").get("breadcrumbs");
    assertThat(all).hasSize(schemas.length + 1);
    assertThat(RcrtJson.write(all)).doesNotContain("sk-leak-").contains("front");
  }

  @Test
  void breadcrumbSearchByMeaningBoundsWhatAModelAsksForAndNeverFindsSecrets() throws Exception {
    InMemoryBreadcrumbStore embedded = InMemoryBreadcrumbStore.builder().embeddings(new dev.rcrt.testing.TestEmbeddings()).build();
    BuiltinTools.seed(embedded);
    for (int i = 0; i < 150; i++) {
      embedded.create(dev.rcrt.core.BreadcrumbCreate.builder("note.v1", "note " + i).context(RcrtJson.parse("{\"text\":\"otters " + i + "\"}")).build());
    }
    embedded.create(dev.rcrt.core.BreadcrumbCreate.builder("cred.v1", "otters key")
        .context(RcrtJson.parse("{\"key\":\"hunter2 otters\"}")).sensitivity(dev.rcrt.core.Sensitivity.SECRET).build());
    try (ToolRunner searching = ToolRunner.builder(embedded).build()) {
      ToolResponse huge = searching.call(ToolRequest.of("breadcrumb-search", RcrtJson.parse("{\"query\":\"otters\",\"nn\":1000000000}"), "agent-x"));
      assertThat(huge.error()).as("refused by the tool's input schema").contains("/nn", "50");

      ToolResponse r = searching.call(ToolRequest.of("breadcrumb-search", RcrtJson.parse("{\"query\":\"otters\",\"nn\":50}"), "agent-x"));
      assertThat(r.error()).isNull();
      assertThat(r.output().get("method").asText()).isEqualTo("vector");
      assertThat(r.output().get("count").asInt()).isEqualTo(50);
      assertThat(RcrtJson.write(r.output())).doesNotContain("hunter2").doesNotContain("otters key");
    }
  }

  @Test
  void aSearchByMeaningSaysWhenItsAnswerComesFromPartOfTheStore() throws Exception {
    dev.rcrt.testing.TestEmbeddings model = new dev.rcrt.testing.TestEmbeddings();
    java.util.concurrent.CountDownLatch indexing = new java.util.concurrent.CountDownLatch(1);
    dev.rcrt.core.EmbeddingProvider slow = new dev.rcrt.core.EmbeddingProvider() {
      @Override
      public String model() {
        return model.model();
      }

      @Override
      public int dimensions() {
        return model.dimensions();
      }

      @Override
      public java.util.List<float[]> embed(java.util.List<String> texts) {
        if (!texts.equals(java.util.List.of("otters"))) { // records wait until the test lets them through; the query does not
          try {
            indexing.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
        return model.embed(texts);
      }
    };
    InMemoryBreadcrumbStore embedded = InMemoryBreadcrumbStore.builder().embeddings(slow).build();
    BuiltinTools.seed(embedded);
    embedded.create(dev.rcrt.core.BreadcrumbCreate.builder("note.v1", "otters").context(RcrtJson.parse("{\"text\":\"otters swim\"}")).build());
    try (ToolRunner searching = ToolRunner.builder(embedded).build()) {
      JsonNode partial = searching.call(ToolRequest.of("breadcrumb-search", RcrtJson.parse("{\"query\":\"otters\",\"wait_ms\":50}"), "agent-x")).output();
      assertThat(partial.get("complete").asBoolean()).isFalse();
      assertThat(partial.get("not_indexed").asLong()).isPositive();

      indexing.countDown();
      JsonNode whole = searching.call(ToolRequest.of("breadcrumb-search", RcrtJson.parse("{\"query\":\"otters\",\"wait_ms\":60000}"), "agent-x")).output();
      assertThat(whole.get("complete").asBoolean()).isTrue();
      assertThat(whole.has("not_indexed")).isFalse();
      assertThat(whole.get("breadcrumbs")).extracting(b -> b.get("title").asText()).contains("otters");
    } finally {
      indexing.countDown();
    }
  }
}
