package dev.rcrt.cli;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.matchingJsonPath;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.tomakehurst.wiremock.junit5.WireMockExtension;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.rcrt.core.RcrtJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

class ChatCommandTest {
  @RegisterExtension
  static WireMockExtension server = WireMockExtension.newInstance().options(wireMockConfig().dynamicPort()).build();

  @TempDir Path dir;

  /** The endpoint answers a request without tool results with {@code toolRound}, and one that carries them with {@code answer}. */
  private static void stubToolRoundThenAnswer(String toolRound, String answer) {
    server.stubFor(post(urlEqualTo("/v1/chat/completions")).atPriority(5)
        .willReturn(aResponse().withHeader("Content-Type", "application/json").withBody(toolRound)));
    server.stubFor(post(urlEqualTo("/v1/chat/completions")).atPriority(1)
        .withRequestBody(matchingJsonPath("$.messages[?(@.role == 'tool')]"))
        .willReturn(aResponse().withHeader("Content-Type", "application/json").withBody(answer)));
  }

  @Test
  void offlineChatAnswersWithTheCalculatorAndTheDumpShowsTheWholeTrail() throws Exception {
    Path dump = dir.resolve("trail.jsonl");
    CliHarness run = CliHarness.run("chat", "--dump", dump.toString(), "What is 17 * 23?");

    assertThat(run.status).isZero();
    assertThat(run.out()).contains("391");
    assertThat(run.err()).contains("offline demo model");

    List<JsonNode> lines = Files.readAllLines(dump).stream().map(RcrtJson::parse).toList();
    List<String> trail = lines.stream().map(l -> l.get("schema_name").asText())
        .filter(s -> s.startsWith("user.") || s.startsWith("tool.re") || s.startsWith("agent.response")).toList();
    // the model's first round (its tool call) is recorded before the call runs; the answer comes last
    assertThat(trail).containsExactly("user.message.v1", "agent.response.v1", "tool.request.v1", "tool.response.v1", "agent.response.v1");
    JsonNode request = find(lines, "tool.request.v1");
    JsonNode response = find(lines, "tool.response.v1");
    assertThat(response.at("/context/status").asText()).isEqualTo("success");
    assertThat(response.at("/context/request_id").asText()).isEqualTo(request.get("id").asText());
    assertThat(request.at("/context/requestId").asText()).isEqualTo(request.get("id").asText());
    assertThat(find(lines, "agent.response.v1").at("/context/message").asText()).contains("391");
    assertThat(find(lines, "agent.response.v1").at("/context/model").asText()).as("no real model answered").isEqualTo("offline-demo");
    assertThat(request.has("checksum")).isTrue();
    assertThat(request.has("created_at")).isTrue();
  }

  @Test
  void offlineStreamingPrintsTheAnswer() {
    CliHarness run = CliHarness.run("chat", "--stream", "What is 17 * 23?");
    assertThat(run.status).isZero();
    assertThat(run.out()).contains("391").endsWith("\n");
  }

  @Test
  void aModelWithoutAnEndpointIsAUsageErrorNotASilentDemo() {
    CliHarness run = CliHarness.run("chat", "--model", "gpt-4o", "hi");
    assertThat(run.status).isEqualTo(2);
    assertThat(run.err()).contains("--model gpt-4o needs a real endpoint: pass --base-url URL").doesNotContain("offline demo model (it knows");
    assertThat(run.out()).isEmpty();
  }

  @Test
  void badOptionValuesAreUsageErrors() {
    CliHarness rounds = CliHarness.run("chat", "--max-rounds", "0", "hi");
    assertThat(rounds.status).isEqualTo(2);
    assertThat(rounds.err()).startsWith("rcrt: --max-rounds must be at least 1, found 0").contains("Run './rcrt chat --help'");
    CliHarness url = CliHarness.run("chat", "--base-url", "localhost:11434/v1", "hi");
    assertThat(url.status).isEqualTo(2);
    assertThat(url.err()).startsWith("rcrt: base URL 'localhost:11434/v1' has no http:// or https:// scheme");
  }

  @Test
  void runsResumeGoesOnWithTheModelTheRunsRoundsNameAndTheHintsWorkWhenPasted() {
    stubToolRoundThenAnswer("""
            {"id":"chatcmpl-1","object":"chat.completion","model":"gpt-4.1-mini-2025-04-14","choices":[{"index":0,
              "message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function",
                "function":{"name":"calculator","arguments":"{\\"expression\\":\\"17 * 23\\"}"}}]},
              "finish_reason":"tool_calls"}]}
            """, """
            {"id":"chatcmpl-2","object":"chat.completion","choices":[{"index":0,
              "message":{"role":"assistant","content":"It is 391."},"finish_reason":"stop"}]}
            """);
    String url = dev.rcrt.postgres.TestPostgres.storeUrl(dev.rcrt.postgres.TestPostgres.freshSchema());
    Map<String, String> env = Map.of("RCRT_API_KEY", "sk-resume-test");
    // event mode with no runner listening: the run waits for its call, and chat stops waiting
    CliHarness chat = CliHarness.run(env, "", "chat", "--store", url, "--tool-mode", "event", "--wait", "2s",
        "--base-url", server.baseUrl() + "/v1", "--model", "gpt-4.1-mini", "What is 17 * 23?");
    assertThat(chat.status).as(chat.err()).isEqualTo(1);
    java.util.regex.Matcher hint = java.util.regex.Pattern.compile("runs show (\\S+) --store (\\S+)\\)").matcher(chat.err());
    assertThat(hint.find()).as(chat.err()).isTrue();

    CliHarness resumed = CliHarness.run(env, "", "runs", "resume", hint.group(1), "--store", hint.group(2), "--base-url", server.baseUrl() + "/v1");

    assertThat(resumed.status).as(resumed.err()).isZero();
    assertThat(resumed.out().strip()).isEqualTo("It is 391.");
    assertThat(resumed.err()).contains("resuming on model gpt-4.1-mini-2025-04-14").doesNotContain("sk-resume-test");
    List<LoggedRequest> asked = server.findAll(com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor(urlEqualTo("/v1/chat/completions")));
    assertThat(asked).hasSize(2);
    assertThat(RcrtJson.parse(asked.get(1).getBodyAsString()).get("model").asText()).isEqualTo("gpt-4.1-mini-2025-04-14");
  }

  @Test
  void againstAnOpenAiCompatibleEndpointTheToolCallRoundTripFollowsTheWireFormat() {
    stubToolRoundThenAnswer("""
            {"id":"chatcmpl-1","object":"chat.completion","model":"gpt-4o-mini","choices":[{"index":0,
              "message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_abc123","type":"function",
                "function":{"name":"calculator","arguments":"{\\"expression\\":\\"17 * 23\\"}"}}]},
              "finish_reason":"tool_calls"}],"usage":{"prompt_tokens":80,"completion_tokens":20,"total_tokens":100}}
            """, """
            {"id":"chatcmpl-2","object":"chat.completion","choices":[{"index":0,
              "message":{"role":"assistant","content":"17 × 23 = 391."},"finish_reason":"stop"}]}
            """);

    CliHarness run = CliHarness.run(Map.of("RCRT_API_KEY", "sk-wire-test"), "",
        "chat", "--base-url", server.baseUrl() + "/v1", "--model", "gpt-4o-mini", "What is 17 * 23?");

    assertThat(run.err()).doesNotContain("offline demo").doesNotContain("sk-wire-test");
    assertThat(run.status).isZero();
    assertThat(run.out().strip()).isEqualTo("17 × 23 = 391.");

    List<LoggedRequest> requests = server.findAll(com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor(urlEqualTo("/v1/chat/completions")));
    assertThat(requests).hasSize(2);
    assertThat(requests.get(0).getHeader("Authorization")).isEqualTo("Bearer sk-wire-test");
    JsonNode first = RcrtJson.parse(requests.get(0).getBodyAsString());
    assertThat(first.get("model").asText()).isEqualTo("gpt-4o-mini");
    JsonNode calculator = null;
    for (JsonNode tool : first.get("tools")) {
      if (tool.at("/function/name").asText().equals("calculator")) {
        calculator = tool;
      }
    }
    assertThat(calculator.get("type").asText()).isEqualTo("function");
    assertThat(calculator.at("/function/parameters/properties/expression/type").asText()).isEqualTo("string");
    assertThat(calculator.at("/function/parameters/required/0").asText()).isEqualTo("expression");

    JsonNode second = RcrtJson.parse(requests.get(1).getBodyAsString());
    JsonNode messages = second.get("messages");
    JsonNode assistant = messages.get(messages.size() - 2);
    JsonNode tool = messages.get(messages.size() - 1);
    assertThat(assistant.get("role").asText()).isEqualTo("assistant");
    assertThat(assistant.at("/tool_calls/0/id").asText()).isEqualTo("call_abc123");
    assertThat(assistant.at("/tool_calls/0/function/arguments").asText()).isEqualTo("{\"expression\":\"17 * 23\"}");
    assertThat(tool.get("role").asText()).isEqualTo("tool");
    assertThat(tool.get("tool_call_id").asText()).isEqualTo("call_abc123");
    assertThat(RcrtJson.parse(tool.get("content").asText()).get("result").asInt()).isEqualTo(391);
    assertThat(requests.get(1).getHeader("Authorization")).isEqualTo("Bearer sk-wire-test");
  }

  @Test
  void streamPrintsTheTokensAsTheyArriveFromAnSseEndpoint() {
    server.stubFor(post(urlEqualTo("/v1/chat/completions")).willReturn(aResponse().withHeader("Content-Type", "text/event-stream").withBody("""
        : OPENROUTER PROCESSING

        data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"Hello"}}]}

        data: {"choices":[{"index":0,"delta":{"content":", world"}}]}

        data: {"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8}}

        data: [DONE]

        """)));
    CliHarness run = CliHarness.run(Map.of("RCRT_API_KEY", "k"), "", "chat", "--stream", "--base-url", server.baseUrl() + "/v1", "hi");
    assertThat(run.status).isZero();
    assertThat(run.out()).isEqualTo("Hello, world" + System.lineSeparator());
    assertThat(server.getAllServeEvents().get(0).getRequest().getBodyAsString()).contains("\"stream\":true");
  }

  @Test
  void aFailingEndpointExitsWithOneLineAndNoStackTrace() {
    server.stubFor(post(urlEqualTo("/v1/chat/completions"))
        .willReturn(aResponse().withStatus(401).withBody("{\"error\":{\"message\":\"Incorrect API key provided\"}}")));
    CliHarness run = CliHarness.run(Map.of("OPENAI_API_KEY", "sk-bad"), "", "chat", "--base-url", server.baseUrl() + "/v1", "hi");

    assertThat(run.status).isEqualTo(1);
    assertThat(run.err().strip()).startsWith("rcrt: model endpoint").contains("HTTP 401: Incorrect API key provided").doesNotContain("sk-bad");
    assertThat(run.err()).doesNotContain("\tat ");
  }

  @Test
  void aRefusalAndACutOffToolCallExitOneWithOneLineAndNoCallRuns() {
    server.stubFor(post(urlEqualTo("/v1/chat/completions")).willReturn(com.github.tomakehurst.wiremock.client.WireMock.okJson("""
        {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o-2024-08-06",
         "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "refusal": "I'm sorry, I cannot assist with that request."},
                      "logprobs": null, "finish_reason": "stop"}]}""")));
    CliHarness refused = CliHarness.run(Map.of("RCRT_API_KEY", "k"), "", "chat", "--base-url", server.baseUrl() + "/v1", "hi");
    assertThat(refused.status).isEqualTo(1);
    assertThat(refused.out().strip()).isEqualTo("The model refused to answer: I'm sorry, I cannot assist with that request.");

    server.resetAll();
    server.stubFor(post(urlEqualTo("/v1/chat/completions")).willReturn(aResponse().withHeader("Content-Type", "text/event-stream").withBody("""
        data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"calculator","arguments":""}}]},"finish_reason":null}]}

        data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"expression\\": \\"17 *"}}]},"finish_reason":null}]}

        data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"length"}]}

        data: [DONE]

        """)));
    CliHarness cut = CliHarness.run(Map.of("RCRT_API_KEY", "k"), "", "chat", "--stream", "--base-url", server.baseUrl() + "/v1", "What is 17 * 23?");
    assertThat(cut.status).isEqualTo(1);
    assertThat(cut.out()).contains("cut off at its output token limit", "'calculator'", "no call of it was run");
    assertThat(server.getAllServeEvents()).as("the cut-off call was not run, so the model was not asked again").hasSize(1);
  }

  @Test
  void theReplKeepsTheSessionAcrossLinesAndStopsAtExit() {
    CliHarness run = CliHarness.run(Map.of(), "remember buy milk\n\nsearch my notes\n/exit\necho never read\n", "chat", "--session", "s1");
    assertThat(run.status).isZero();
    List<String> answers = run.out().lines().toList();
    assertThat(answers).hasSize(2);
    assertThat(answers.get(0)).startsWith("Saved it as breadcrumb");
    assertThat(answers.get(1)).isEqualTo("I found 1 breadcrumb: buy milk (note.v1).");
  }

  @Test
  void breadcrumbFilesAddToolsAndABrokenFileIsReportedWithoutStoppingTheRun() throws Exception {
    Files.writeString(dir.resolve("broken.json"), "{ not json");
    Files.writeString(dir.resolve("weather.json"), """
        {"schema_name":"tool.v1","title":"Weather","context":{"name":"weather","description":"Current weather",
         "implementation":{"type":"http","endpoint":"http://127.0.0.1:9/weather"}}}
        """);
    CliHarness run = CliHarness.run("tools", "list", "--breadcrumbs", dir.toString());

    assertThat(run.status).isZero();
    assertThat(run.out()).contains("weather").contains("calculator");
    assertThat(run.err()).contains("rcrt: skipped " + dir.resolve("broken.json") + ": not valid JSON");
  }

  @Test
  void anUnknownOptionIsAUsageError() {
    CliHarness run = CliHarness.run("chat", "--no-such-option");
    assertThat(run.status).isEqualTo(2);
    assertThat(run.err()).contains("Unknown option: '--no-such-option'");
  }

  @Test
  void anUnknownAgentIsAFailureNamingTheLoadedAgents() {
    CliHarness run = CliHarness.run("chat", "--agent", "nope", "hi");
    assertThat(run.status).isEqualTo(1);
    assertThat(run.err()).contains("no agent definition with agent_id 'nope'; loaded agents: [default-chat-assistant]");
  }

  @Test
  void toolsPromptPrintsWhatANativeToolsAgentSendsAndNoInputLinesItNeverSends() {
    CliHarness run = CliHarness.run("tools", "prompt");
    assertThat(run.status).isZero();
    assertThat(run.out()).contains("=== system message\nYou are a helpful assistant.").contains("Tool: calculator\n")
        .doesNotContain("Input:").contains("=== tools (OpenAI function calling)").contains("\"type\" : \"function\"");
  }

  @Test
  void toolsPromptForTheTextProtocolDescribesInputsAndSendsNoToolsJson() {
    CliHarness run = CliHarness.run("tools", "prompt", "--protocol", "text");
    assertThat(run.status).isZero();
    assertThat(run.out()).contains("Input: expression (string, required)").doesNotContain("=== tools");
    assertThat(CliHarness.run("tools", "prompt", "--protocol", "smoke").status).isEqualTo(2);
  }

  /** The first record of {@code schema}; for {@code agent.response.v1}, the answer, not a round. */
  private static JsonNode find(List<JsonNode> lines, String schema) {
    return lines.stream().filter(l -> l.get("schema_name").asText().equals(schema) && !l.path("tags").toString().contains("agent:round"))
        .findFirst().orElseThrow();
  }
}
