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
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import dev.rcrt.core.RcrtJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent definition shaped like RCRT's default chat assistant (no model, an {@code
 * llm_config_id}, the envelope prompt, role/key/fetch selectors) answers through {@code ./rcrt chat}
 * against a model that replies in RCRT's envelope, and the trail has RCRT's shapes.
 */
class RcrtAgentChatTest {
  private static final Path AGENT = Path.of("src/test/resources/rcrt-agent");

  @RegisterExtension
  static WireMockExtension model = WireMockExtension.newInstance().options(wireMockConfig().dynamicPort()).build();

  @TempDir Path dir;

  private static String completion(String content) {
    return RcrtJson.write(RcrtJson.parse("""
        {"id":"c","model":"google/gemini-2.0-flash-exp","choices":[{"index":0,"finish_reason":"stop",
          "message":{"role":"assistant","content":""}}],"usage":{"prompt_tokens":50,"completion_tokens":20,"total_tokens":70}}""")
        .deepCopy()).replace("\"content\":\"\"", "\"content\":" + RcrtJson.write(RcrtJson.nodes().textNode(content)));
  }

  @Test
  void rcrtsDefaultChatAssistantAnswersWithACalculatorResultThatCameBackToTheModel() throws Exception {
    String toolTurn = """
        ```json
        {"action": "create", "breadcrumb": {"schema_name": "agent.response.v1", "title": "Chat Response",
          "tags": ["agent:response", "chat:output", "session:SESSION_ID_FROM_USER_MESSAGE"],
          "context": {"message": "Let me work that out.", "tool_requests": [
            {"tool": "calculator", "input": {"expression": "17 * 23"}, "requestId": "calc-001", "return_to_llm": true},]}}}
        ```""";
    String finalTurn = "{\"action\":\"create\",\"breadcrumb\":{\"schema_name\":\"agent.response.v1\",\"title\":\"Chat Response\","
        + "\"tags\":[\"agent:response\",\"chat:output\"],\"context\":{\"message\":\"17 * 23 = 391\"}}}";
    model.stubFor(post(urlEqualTo("/v1/chat/completions")).inScenario("envelope").whenScenarioStateIs(Scenario.STARTED)
        .willReturn(aResponse().withHeader("Content-Type", "application/json").withBody(completion(toolTurn))).willSetStateTo("answered"));
    model.stubFor(post(urlEqualTo("/v1/chat/completions")).inScenario("envelope").whenScenarioStateIs("answered")
        .willReturn(aResponse().withHeader("Content-Type", "application/json").withBody(completion(finalTurn))));
    Path trail = dir.resolve("trail.jsonl");

    CliHarness run = CliHarness.run(Map.of("OPENROUTER_SECRET", "or-key-canary-8812"), "",
        "chat", "--breadcrumbs", AGENT.toString(), "--base-url", model.baseUrl() + "/v1", "--session", "s-rcrt",
        "--dump", trail.toString(), "What is 17 * 23?");

    assertThat(run.status).as(run.err()).isZero();
    assertThat(run.out().strip()).isEqualTo("17 * 23 = 391");
    model.verify(2, postRequestedFor(urlEqualTo("/v1/chat/completions"))
        .withHeader("Authorization", equalTo("Bearer or-key-canary-8812"))
        .withRequestBody(matchingJsonPath("$.model", equalTo("google/gemini-2.0-flash-exp")))
        .withRequestBody(matchingJsonPath("$.max_tokens", equalTo("4000"))));
    var served = model.getAllServeEvents(); // newest first
    String firstBody = served.get(served.size() - 1).getRequest().getBodyAsString();
    assertThat(RcrtJson.parse(firstBody).has("tools")).as("the envelope protocol offers tools in the prompt").isFalse();
    assertThat(firstBody).contains("=== BROWSER ===").contains("Pricing - Example").contains("calculator");

    List<JsonNode> records = Files.readAllLines(trail).stream().map(RcrtJson::parse).toList();
    JsonNode question = only(records, "user.message.v1");
    assertThat(question.path("context").path("timestamp").asText()).endsWith("Z");
    JsonNode request = only(records, "tool.request.v1");
    assertThat(request.path("context").path("tool").asText()).isEqualTo("calculator");
    assertThat(request.path("context").path("requestedBy").asText()).isEqualTo("default-chat-assistant");
    JsonNode toolResponse = only(records, "tool.response.v1");
    assertThat(RcrtJson.write(toolResponse.path("tags"))).contains("workspace:tools");
    assertThat(toolResponse.path("context").path("output").path("result").asInt()).isEqualTo(391);
    JsonNode round = records.stream().filter(r -> r.path("tags").toString().contains("agent:round")).findFirst().orElseThrow();
    assertThat(round.path("context").path("tool_requests").get(0).path("tool").asText()).as("the model round, recorded as RCRT's agents do")
        .isEqualTo("calculator");
    JsonNode answer = only(records.stream().filter(r -> !r.path("tags").toString().contains("agent:round")).toList(), "agent.response.v1");
    assertThat(RcrtJson.write(answer.path("tags"))).contains("agent:response").contains("chat:output").contains("session:s-rcrt")
        .doesNotContain("SESSION_ID_FROM_USER_MESSAGE");
    assertThat(answer.path("title").asText()).isEqualTo("Chat Response");
    assertThat(answer.path("visibility").asText()).isEqualTo("Team");
    assertThat(answer.path("context").path("creator").path("type").asText()).isEqualTo("agent");
    assertThat(answer.path("context").path("creator").path("agent_id").asText()).isEqualTo("default-chat-assistant");
    assertThat(answer.path("context").path("trigger_event_id").asText()).isEqualTo(question.path("id").asText());
    assertThat(answer.path("context").path("model").asText()).isEqualTo("google/gemini-2.0-flash-exp");
    assertThat(Files.readString(trail) + run.out() + run.err()).doesNotContain("or-key-canary-8812");
  }

  private static JsonNode only(List<JsonNode> records, String schema) {
    List<JsonNode> found = records.stream().filter(r -> schema.equals(r.path("schema_name").asText())).toList();
    assertThat(found).as(schema).hasSize(1);
    return found.get(0);
  }

  @Test
  void anRcrtNoteAgentWithItsModelInLlmConfigValidatesAndAnswersOnThatModel() throws Exception {
    Path tagger = AGENT.resolve("note-tagger-agent.json");
    CliHarness validate = CliHarness.run("validate", "--strict", tagger.toString());
    assertThat(validate.status).as(validate.out() + validate.err()).isZero();

    model.stubFor(post(urlEqualTo("/v1/chat/completions")).atPriority(1)
        .withRequestBody(matchingJsonPath("$.model", equalTo("anthropic/claude-3.5-sonnet")))
        .willReturn(aResponse().withHeader("Content-Type", "application/json").withBody(completion("{\"tags\": [\"otters\", \"rivers\", \"wildlife\"]}"))));
    CliHarness chat = CliHarness.run(Map.of("RCRT_API_KEY", "sk-tagger"), "", "chat", "--agent", "note-tagger", "--breadcrumbs", tagger.toString(),
        "--base-url", model.baseUrl() + "/v1", "Title: Otters. Otters live in rivers and eat fish.");

    assertThat(chat.status).as(chat.err()).isZero();
    assertThat(chat.out()).contains("\"otters\"");
    JsonNode asked = RcrtJson.parse(model.findAll(postRequestedFor(urlEqualTo("/v1/chat/completions"))).get(0).getBodyAsString());
    assertThat(asked.get("model").asText()).isEqualTo("anthropic/claude-3.5-sonnet");
    assertThat(asked.get("temperature").asDouble()).isEqualTo(0.7);
    assertThat(asked.path("max_tokens").asInt(asked.path("max_completion_tokens").asInt())).isEqualTo(500);
  }

  @Test
  void rcrtsPageAgentsWithTheirOwnResponseFormatValidateAndAnswer() throws Exception {
    // RCRT's examples/agents (lightforge 39a17a9): response_format is RCRT's {schema_name, auto_send, format, include_*}, not OpenAI's
    for (String agent : new String[] {"page-assistant", "page-summarizer"}) {
      Path file = AGENT.resolve(agent + "-agent.json");
      CliHarness validate = CliHarness.run("validate", file.toString());
      assertThat(validate.status).as(validate.out() + validate.err()).isZero();
      assertThat(validate.out()).doesNotContain("responseFormat");

      model.resetAll();
      model.stubFor(post(urlEqualTo("/v1/chat/completions"))
          .willReturn(aResponse().withHeader("Content-Type", "application/json").withBody(completion("**Main Topic**: otters."))));
      CliHarness chat = CliHarness.run(Map.of("RCRT_API_KEY", "sk-page"), "", "chat", "--agent", agent, "--breadcrumbs", file.toString(),
          "--base-url", model.baseUrl() + "/v1", "What is on this page?");

      assertThat(chat.status).as(chat.err()).isZero();
      assertThat(chat.out()).contains("Main Topic");
      JsonNode asked = RcrtJson.parse(model.findAll(postRequestedFor(urlEqualTo("/v1/chat/completions"))).get(0).getBodyAsString());
      assertThat(asked.has("response_format")).as("RCRT's response_format describes the answer record; the model is not asked for it").isFalse();
      assertThat(asked.get("model").asText()).startsWith("openrouter/");
    }
  }
}
