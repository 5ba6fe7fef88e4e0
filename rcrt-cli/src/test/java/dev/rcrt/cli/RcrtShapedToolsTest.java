package dev.rcrt.cli;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.matchingJsonPath;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.tomakehurst.wiremock.junit5.WireMockExtension;
import dev.rcrt.core.RcrtJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tools shaped like RCRT's own self-contained tools (our fixtures in {@code rcrt-tools/}: the same
 * record layout, the same {@code context.api} calls, timers and secrets) run through {@code ./rcrt
 * tool call} with their own examples.
 */
class RcrtShapedToolsTest {
  private static final Path TOOLS = Path.of("src/test/resources/rcrt-tools");

  @RegisterExtension
  static WireMockExtension model = WireMockExtension.newInstance().options(wireMockConfig().dynamicPort()).build();

  @TempDir Path dir;

  private static List<JsonNode> examples(String tool) throws Exception {
    List<JsonNode> inputs = new ArrayList<>();
    RcrtJson.parse(Files.readString(TOOLS.resolve(tool + ".json"))).path("context").path("examples").forEach(e -> inputs.add(e.get("input")));
    assertThat(inputs).as("examples of " + tool).isNotEmpty();
    return inputs;
  }

  private static JsonNode call(String tool, JsonNode input, String... more) {
    List<String> args = new ArrayList<>(List.of("tool", "call", tool, RcrtJson.write(input), "--breadcrumbs", TOOLS.toString()));
    args.addAll(List.of(more));
    CliHarness run = CliHarness.run(args.toArray(String[]::new));
    assertThat(run.status).as(tool + " " + input + ": " + run.err()).isZero();
    return RcrtJson.parse(run.out());
  }

  @Test
  void timerWaitsOnSetTimeout() throws Exception {
    for (JsonNode input : examples("timer")) {
      JsonNode out = call("timer", input);
      assertThat(out.get("waited").asDouble()).isEqualTo(input.get("seconds").asDouble());
      assertThat(out.get("message").asText()).isEqualTo("Waited " + input.get("seconds").asText() + " seconds");
    }
  }

  @Test
  void schedulerFindsEnabledSchedulesByRcrtSearchAndPublishesATickBetweenSleeps() throws Exception {
    JsonNode out = call("scheduler", examples("scheduler").get(0));
    assertThat(out.get("status").asText()).isEqualTo("stopped");
    assertThat(out.get("schedules_loaded").asInt()).as("the disabled schedule is filtered out").isEqualTo(1);
    assertThat(out.get("ticks_published").asInt()).as("a minutely schedule fires once within a minute").isEqualTo(1);
    assertThat(out.get("uptime_ms").asLong()).isGreaterThanOrEqualTo(200);
  }

  @Test
  void workflowRunsItsStepsAsToolRequestsWhenItMayRequestTools() throws Exception {
    List<JsonNode> inputs = examples("workflow");
    JsonNode sequential = call("workflow", inputs.get(0), "--allow-requester-tool", "workflow");
    JsonNode results = sequential.get("results");
    double sum = results.get("num1").get("numbers").get(0).asDouble() + results.get("num2").get("numbers").get(0).asDouble();
    assertThat(results.get("sum").get("result").asDouble()).isEqualTo(sum);
    assertThat(RcrtJson.write(sequential.get("executionOrder"))).endsWith("\"sum\"]");

    JsonNode parallel = call("workflow", inputs.get(1), "--allow-requester-tool", "workflow");
    assertThat(parallel.get("results").get("task1").get("waited").asDouble()).isEqualTo(0.2);
    assertThat(parallel.get("results").get("task2").get("echo").asText()).isEqualTo("Parallel");
    assertThat(parallel.has("errors")).isFalse();
  }

  @Test
  void aToolMayNotRequestToolsUnlessTheOperatorSaysSo() throws Exception {
    JsonNode input = RcrtJson.parse("{\"steps\":[{\"id\":\"e\",\"tool\":\"echo\",\"input\":{\"message\":\"hi\"}}]}");
    CliHarness run = CliHarness.run("tool", "call", "workflow", RcrtJson.write(input), "--breadcrumbs", TOOLS.toString());
    assertThat(run.status).isEqualTo(1);
    assertThat(run.err()).contains("Step e failed").contains("tool:workflow");
  }

  @Test
  void breadcrumbSearchFiltersByRcrtsTagAndAnswersAQueryByMeaningInTheDefaultStore() throws Exception {
    List<JsonNode> inputs = examples("breadcrumb-search");
    JsonNode byTag = call("breadcrumb-search", inputs.get(1));
    assertThat(byTag.get("method").asText()).isEqualTo("filter");
    assertThat(byTag.get("count").asInt()).as("only the tool tagged tool:timer").isEqualTo(1);
    assertThat(byTag.get("breadcrumbs").get(0).get("context").get("name").asText()).isEqualTo("timer");

    // RCRT's own example query, through its JavaScript tool's context.api.vectorSearch: the default store embeds with MiniLM
    CliHarness query = CliHarness.run("tool", "call", "breadcrumb-search", RcrtJson.write(inputs.get(0)), "--breadcrumbs", TOOLS.toString());
    assertThat(query.status).as(query.err()).isZero();
    assertThat(query.err()).doesNotContain("vectorSearch is not available");
    assertThat(query.out()).contains("\"id\"");
  }

  @Test
  void breadcrumbCreateFallsBackToTheDefaultForRcrtsInternalSensitivity() throws Exception {
    JsonNode out = call("breadcrumb-create", examples("breadcrumb-create").get(0));
    assertThat(out.get("success").asBoolean()).as(out.toString()).isTrue();
    assertThat(out.get("breadcrumb").get("sensitivity").asText()).isEqualTo("Low");
    assertThat(out.get("breadcrumb").get("created_by").asText()).isEqualTo("tool:breadcrumb-create");
  }

  @Test
  void anLlmToolReadsItsKeyWithGetSecretFromItsConfigAndTheKeyAppearsNowhere() throws Exception {
    model.stubFor(post(urlEqualTo("/v1/chat/completions")).willReturn(aResponse().withHeader("Content-Type", "application/json").withBody("""
        {"id":"c1","model":"test-model","choices":[{"index":0,"message":{"role":"assistant","content":"2 + 2 equals 4."},"finish_reason":"stop"}],
         "usage":{"prompt_tokens":10,"completion_tokens":8,"total_tokens":18}}""")));
    Path config = dir.resolve("config.json");
    Files.writeString(config, """
        {"id":"llm-chat-config","schema_name":"tool.config.v1","title":"LLM chat config","tags":["tool:config","workspace:tools"],
         "context":{"tool_name":"llm-chat","config":{"apiKeySecretId":"LLM_CHAT_KEY","defaultModel":"test-model","baseUrl":"%s/v1"}}}
        """.formatted(model.baseUrl()));
    CliHarness run = CliHarness.run(Map.of("LLM_CHAT_KEY", "sk-canary-4471"), "",
        "tool", "call", "llm-chat", RcrtJson.write(examples("llm-chat").get(0)),
        "--breadcrumbs", TOOLS.toString(), "--breadcrumbs", config.toString(), "--allow-network", "127.0.0.0/8");
    assertThat(run.status).as(run.err()).isZero();
    JsonNode out = RcrtJson.parse(run.out());
    assertThat(out.get("content").asText()).isEqualTo("2 + 2 equals 4.");
    assertThat(out.get("model").asText()).isEqualTo("test-model");
    model.verify(postRequestedFor(urlEqualTo("/v1/chat/completions"))
        .withHeader("Authorization", equalTo("Bearer sk-canary-4471"))
        .withRequestBody(matchingJsonPath("$.model", equalTo("test-model"))));
    assertThat(run.out() + run.err()).doesNotContain("sk-canary-4471");
  }
}
