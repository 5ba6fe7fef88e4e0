package dev.rcrt.agent;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.containing;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.junit5.WireMockExtension;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.llm.ChatMessage;
import dev.rcrt.llm.ChatRequest;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.llm.LlmException;
import dev.rcrt.llm.OpenAiCompatibleLlmClient;
import dev.rcrt.llm.ToolCall;
import dev.rcrt.testing.ScriptedLlmClient;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.ToolRunner;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Conversations as typed records: asking in one call, and session memory replayed as the provider saw it. */
class ConversationTest {
  @RegisterExtension
  static WireMockExtension server = WireMockExtension.newInstance().options(wireMockConfig().dynamicPort()).build();

  private InMemoryBreadcrumbStore store;
  private ToolRunner runner;
  private AgentDefinition agent;

  @BeforeEach
  void setUp() {
    store = InMemoryBreadcrumbStore.builder().eventExecutor(Runnable::run).build();
    BuiltinTools.seed(store);
    store.create(BreadcrumbCreate.builder("tool.v1", "unit.convert").context(RcrtJson.parse("""
        {"name":"unit.convert","description":"Converts Celsius to Fahrenheit",
         "implementation":{"type":"builtin","export":"unit.convert"},
         "definition":{"inputSchema":{"type":"object","properties":{"celsius":{"type":"number"}},"required":["celsius"]}}}
        """)).build());
    runner = ToolRunner.builder(store)
        .handler("unit.convert", (in, ctx) -> RcrtJson.object().put("fahrenheit", in.get("celsius").asDouble() * 9 / 5 + 32))
        .build();
    agent = AgentDefinition.fromBreadcrumb(store.create(AgentDefinition.defaultChatAgent()));
  }

  @AfterEach
  void tearDown() {
    runner.close();
  }

  private static String completion(String message) {
    return "{\"id\":\"c\",\"object\":\"chat.completion\",\"model\":\"gpt-4o-mini-2024-07-18\",\"choices\":[{\"index\":0," + message
        + "}],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":5,\"total_tokens\":15}}";
  }

  private static void reply(String state, String next, String body) {
    server.stubFor(post(urlEqualTo("/v1/chat/completions")).inScenario("chat").whenScenarioStateIs(state)
        .willReturn(aResponse().withHeader("Content-Type", "application/json").withBody(body)).willSetStateTo(next));
  }

  @Test
  void aSecondTurnAfterCallingUnitConvertReplaysTheFunctionNameTheProviderAcceptsAndIsAnswered() {
    // like OpenAI: a function name outside ^[a-zA-Z0-9_-]{1,64}$ anywhere in the request is a 400
    server.stubFor(post(urlEqualTo("/v1/chat/completions")).atPriority(1).withRequestBody(containing("\"name\":\"unit.convert\""))
        .willReturn(aResponse().withStatus(400).withHeader("Content-Type", "application/json")
            .withBody("{\"error\":{\"message\":\"Invalid 'messages[2].tool_calls[0].function.name': string does not match pattern.\",\"type\":\"invalid_request_error\"}}")));
    reply(Scenario.STARTED, "called", completion("""
        "message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"unit_convert","arguments":"{\\"celsius\\":20}"}}]},"finish_reason":"tool_calls\""""));
    reply("called", "answered", completion("\"message\":{\"role\":\"assistant\",\"content\":\"20 °C is 68 °F.\"},\"finish_reason\":\"stop\""));
    reply("answered", "done", completion("\"message\":{\"role\":\"assistant\",\"content\":\"And 30 °C is 86 °F.\"},\"finish_reason\":\"stop\""));
    LlmClient llm = OpenAiCompatibleLlmClient.builder(server.baseUrl() + "/v1").apiKey("k").build();

    try (AgentExecutor executor = AgentExecutor.builder(llm, runner).agent(agent).build()) {
      AgentResponse first = executor.ask("repl", "What is 20 °C in °F?");
      AgentResponse second = executor.ask("repl", "And 30 °C?");

      assertThat(first.message()).isEqualTo("20 °C is 68 °F.");
      assertThat(second.message()).isEqualTo("And 30 °C is 86 °F.");
      assertThat(second.status()).isEqualTo(AgentResponse.Status.SUCCESS);
    }
    server.verify(3, postRequestedFor(urlEqualTo("/v1/chat/completions")));
    server.verify(postRequestedFor(urlEqualTo("/v1/chat/completions")).withRequestBody(containing("\"name\":\"unit_convert\",\"arguments\":\"{\\\"celsius\\\":20}\"")));
    assertThat(store.search(Selector.schema("tool.request.v1"), 10, 0).get(0).context().get("function_name").asText()).isEqualTo("unit_convert");
  }

  @Test
  void askRecordsTheQuestionAndReturnsTheTypedAnswerWithTheModelTheProviderNamedAndItsUsage() {
    reply(Scenario.STARTED, "done", completion("\"message\":{\"role\":\"assistant\",\"content\":\"Hi.\"},\"finish_reason\":\"stop\""));
    LlmClient llm = OpenAiCompatibleLlmClient.builder(server.baseUrl() + "/v1").build();
    try (AgentExecutor executor = AgentExecutor.builder(llm, runner).agent(agent).build()) {
      AgentResponse answer = executor.ask("s", "Hello");
      assertThat(answer.model()).isEqualTo("gpt-4o-mini-2024-07-18");
      assertThat(answer.usage()).isEqualTo(new ChatResponse.Usage(10, 5, 15));
      assertThat(answer.rounds()).isEqualTo(1);
      assertThat(answer.sessionId()).isEqualTo("s");
      assertThat(AgentResponse.fromBreadcrumb(store.get(answer.id()).orElseThrow())).isEqualTo(answer);
      UserMessage asked = UserMessage.fromBreadcrumb(store.get(answer.triggerId()).orElseThrow());
      assertThat(asked).isEqualTo(new UserMessage("s", "Hello"));
    }
  }

  @Test
  void thePreviewIsExactlyTheFirstRequestATurnSends() {
    ScriptedLlmClient llm = ScriptedLlmClient.replying(ChatResponse.text("391"));
    try (AgentExecutor executor = AgentExecutor.builder(llm, runner).agent(agent).build()) {
      ChatRequest preview = executor.preview("What is 17 * 23?");
      executor.ask("fresh", "What is 17 * 23?");

      ChatRequest sent = llm.requests().get(0);
      assertThat(preview.messages()).isEqualTo(sent.messages());
      assertThat(preview.tools()).isEqualTo(sent.tools());
      assertThat(preview.options()).isEqualTo(sent.options());
      assertThat(preview.model()).isEqualTo(sent.model());
    }
    assertThat(store.search(dev.rcrt.core.Selector.allTags("session:preview"), 10, 0)).isEmpty();
  }

  @Test
  void aModelThatNamesNoModelIsRecordedAsTheModelItWasAskedForAndAsyncAskingWorks() throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.replying(ChatResponse.text("yes"));
    try (AgentExecutor executor = AgentExecutor.builder(llm, runner).agent(agent).build()) {
      AgentResponse answer = executor.askAsync("s", "ok?").toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(answer.message()).isEqualTo("yes");
      assertThat(answer.model()).isEqualTo(agent.model());
    }
  }

  @Test
  void changingTheBuilderAfterBuildDoesNotChangeTheExecutor() {
    ScriptedLlmClient llm = ScriptedLlmClient.answering(r -> ChatResponse.toolCalls(new ToolCall("c" + r.messages().size(), "calculator", "{\"expression\":\"1\"}")));
    AgentExecutor.Builder builder = AgentExecutor.builder(llm, runner).agent(agent).maxRounds(1);
    try (AgentExecutor executor = builder.build()) {
      builder.maxRounds(5).agent(agent.withModel("other"));
      AgentResponse answer = executor.ask("s", "loop");
      assertThat(answer.status()).isEqualTo(AgentResponse.Status.ROUND_LIMIT);
      assertThat(answer.rounds()).isEqualTo(1);
      assertThat(llm.requests()).extracting(ChatRequest::model).containsOnly(agent.model());
    }
  }

  @Test
  void aTextProtocolSessionIsReplayedAsTextWithoutToolCalls() {
    AgentDefinition texter = AgentDefinition.fromBreadcrumb(store.create(BreadcrumbCreate.builder("agent.def.v1", "texter")
        .context(RcrtJson.parse("{\"agent_id\":\"texter\",\"model\":\"small\",\"system_prompt\":\"p\",\"tool_protocol\":\"text\"}")).build()));
    ScriptedLlmClient llm = ScriptedLlmClient.replying(
        ChatResponse.text("{\"action\": \"invoke_tool\", \"tool\": \"calculator\", \"input\": {\"expression\": \"2 + 2\"}}"),
        ChatResponse.text("4"),
        ChatResponse.text("still 4"));
    try (AgentExecutor executor = AgentExecutor.builder(llm, runner).agent(texter).build()) {
      executor.ask("t", "2 + 2?");
      executor.ask("t", "sure?");
    }
    List<ChatMessage> history = llm.requests().get(2).messages();
    assertThat(history).noneMatch(ChatMessage::hasToolCalls).noneMatch(m -> "tool".equals(m.role()));
    assertThat(history).extracting(ChatMessage::content).containsSubsequence(
        "2 + 2?",
        "{\"action\":\"invoke_tool\",\"tool\":\"calculator\",\"input\":{\"expression\":\"2 + 2\"}}",
        "Tool results:\ncalculator: {\"result\":4,\"expression\":\"2 + 2\",\"formatted\":\"2 + 2 = 4\"}",
        "4",
        "sure?");
  }

  @Test
  void theScriptedClientGivesAStreamedRequestsListenerTheWholeText() {
    StringBuilder streamed = new StringBuilder();
    ScriptedLlmClient llm = ScriptedLlmClient.replying(ChatResponse.text("all at once"));
    llm.chat(ChatRequest.of("m", List.of(ChatMessage.user("hi"))), streamed::append);
    assertThat(streamed).hasToString("all at once");
  }

  @Test
  void aBaseUrlThatIsNotAnHttpUrlIsATypedErrorWhenTheClientIsBuilt() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> OpenAiCompatibleLlmClient.builder("api.openai.com/v1").build())
        .isInstanceOfSatisfying(LlmException.class, e -> assertThat(e.code()).isEqualTo("llm_config_invalid"))
        .hasMessage("base URL 'api.openai.com/v1' has no http:// or https:// scheme; write it like https://api.openai.com/v1 or http://localhost:11434/v1");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> OpenAiCompatibleLlmClient.builder("http:///v1").build())
        .hasMessageContaining("has no host");
  }
}
