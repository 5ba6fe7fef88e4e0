package dev.rcrt.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.core.ValidationException;
import dev.rcrt.llm.ChatMessage;
import dev.rcrt.llm.ChatOptions;
import dev.rcrt.llm.ChatRequest;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.llm.LlmException;
import dev.rcrt.llm.ToolCall;
import dev.rcrt.testing.ScriptedLlmClient;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.ToolRunner;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AgentExecutorTest {
  private InMemoryBreadcrumbStore store;
  private ToolRunner runner;
  private AgentDefinition agent;

  @BeforeEach
  void setUp() {
    store = InMemoryBreadcrumbStore.builder().eventExecutor(Runnable::run).build();
    BuiltinTools.seed(store);
    runner = ToolRunner.builder(store).build();
    agent = AgentDefinition.fromBreadcrumb(store.create(AgentDefinition.defaultChatAgent()));
  }

  @AfterEach
  void tearDown() {
    runner.close();
  }

  private AgentExecutor executor(LlmClient llm) {
    return AgentExecutor.builder(llm, runner).agent(agent).build();
  }

  private Breadcrumb ask(String session, String text) {
    return store.create(new UserMessage(session, text).toBreadcrumb());
  }

  private static ToolCall call(String id, String name, String args) {
    return new ToolCall(id, name, args);
  }

  private List<Breadcrumb> all(String schema) {
    return store.search(Selector.schema(schema), 100, 0);
  }

  @Test
  void aTurnWithOneToolCallRecordsRequestResponseAndAnswerAndSendsTheResultBack() {
    ScriptedLlmClient llm = ScriptedLlmClient.replying(
        ChatResponse.toolCalls(call("call_1", "calculator", "{\"expression\":\"17 * 23\"}")),
        ChatResponse.text("17 * 23 is 391."));
    Breadcrumb trigger = ask("s1", "What is 17 * 23?");

    AgentExecutor executor = executor(llm);
    Breadcrumb answer = executor.answer(trigger);

    assertThat(answer.schemaName()).isEqualTo("agent.response.v1");
    assertThat(answer.tags()).containsExactly("agent:response", "chat:output", "session:s1", "run:" + executor.runIdOf(trigger));
    assertThat(answer.context().get("message").asText()).isEqualTo("17 * 23 is 391.");
    assertThat(RcrtJson.write(answer.context().get("creator"))).isEqualTo("{\"type\":\"agent\",\"agent_id\":\"default-chat-assistant\"}");
    assertThat(answer.context().get("trigger_event_id").asText()).isEqualTo(trigger.id());
    assertThat(answer.context().get("timestamp").asText()).endsWith("Z");
    assertThat(trigger.context().get("timestamp").asText()).endsWith("Z");
    assertThat(answer.context().get("status").asText()).isEqualTo("success");
    assertThat(answer.context().get("tool_calls").asInt()).isEqualTo(1);
    assertThat(answer.context().get("trigger_id").asText()).isEqualTo(trigger.id());

    Breadcrumb request = all("tool.request.v1").get(0);
    assertThat(request.context().get("tool").asText()).isEqualTo("calculator");
    assertThat(request.context().get("tool_call_id").asText()).isEqualTo("call_1");
    assertThat(request.context().get("requestedBy").asText()).isEqualTo("default-chat-assistant");
    Breadcrumb response = all("tool.response.v1").get(0);
    assertThat(response.context().get("request_id").asText()).isEqualTo(request.context().get("requestId").asText());
    assertThat(response.context().get("status").asText()).isEqualTo("success");

    List<ChatRequest> sent = llm.requests();
    assertThat(sent).hasSize(2);
    ChatRequest first = sent.get(0);
    assertThat(first.model()).isEqualTo("gpt-4o-mini");
    assertThat(first.messages().get(0).content()).isEqualTo(agent.systemPrompt());
    assertThat(first.messages().get(1).content()).contains("Tool: calculator");
    assertThat(first.messages().get(2)).isEqualTo(ChatMessage.user("What is 17 * 23?"));
    assertThat(first.tools()).hasSize(6);

    List<ChatMessage> followUp = sent.get(1).messages();
    ChatMessage assistant = followUp.get(followUp.size() - 2);
    ChatMessage tool = followUp.get(followUp.size() - 1);
    assertThat(assistant.toolCalls()).containsExactly(call("call_1", "calculator", "{\"expression\":\"17 * 23\"}"));
    assertThat(tool.role()).isEqualTo("tool");
    assertThat(tool.toolCallId()).isEqualTo("call_1");
    assertThat(RcrtJson.parse(tool.content()).get("result").asInt()).isEqualTo(391);
  }

  @Test
  void anUnknownToolNameGoesBackToTheModelWithTheAvailableToolsAndTheTurnContinues() {
    ScriptedLlmClient llm = ScriptedLlmClient.replying(
        ChatResponse.toolCalls(call("call_w", "weather", "{\"city\":\"Tokyo\"}")),
        ChatResponse.text("I have no weather tool."));
    Breadcrumb answer = executor(llm).answer(ask("s1", "Weather in Tokyo?"));

    ChatMessage toolMessage = last(llm.requests().get(1).messages());
    assertThat(toolMessage.toolCallId()).isEqualTo("call_w");
    assertThat(toolMessage.content()).isEqualTo(
        "Error: unknown tool 'weather'. Available tools: breadcrumb-create, breadcrumb-search, calculator, echo, random, timer. Call one of these, or answer without a tool.");
    assertThat(answer.context().get("message").asText()).isEqualTo("I have no weather tool.");
    assertThat(all("tool.request.v1")).isEmpty();
  }

  @Test
  void argumentsThatAreNotJsonGoBackWithTheParseErrorAndTheModelCanCorrectThem() {
    ScriptedLlmClient llm = ScriptedLlmClient.replying(
        ChatResponse.toolCalls(call("c1", "calculator", "{expression: 17*23")),
        ChatResponse.toolCalls(call("c2", "calculator", "{\"expression\":\"17*23\"}")),
        ChatResponse.text("391"));
    Breadcrumb answer = executor(llm).answer(ask("s1", "17*23?"));

    ChatMessage error = last(llm.requests().get(1).messages());
    assertThat(error.content())
        .startsWith("Error: the arguments for 'calculator' are not valid JSON: ")
        .contains("at line 1, column 2")
        .endsWith("Call it again with a JSON object that matches its parameters.");
    assertThat(RcrtJson.parse(last(llm.requests().get(2).messages()).content()).get("result").asInt()).isEqualTo(391);
    assertThat(answer.context().get("rounds").asInt()).isEqualTo(3);
  }

  @Test
  void argumentsThatBreakTheSchemaGoBackNamingThePointerAndAreRecordedAsAnErrorResponse() {
    ScriptedLlmClient llm = ScriptedLlmClient.replying(
        ChatResponse.toolCalls(call("c1", "calculator", "{\"expression\":5}")),
        ChatResponse.text("oops"));
    executor(llm).answer(ask("s1", "5?"));

    assertThat(last(llm.requests().get(1).messages()).content())
        .isEqualTo("Error: tool 'calculator' input /expression: expected string, found integer. Fix the arguments and call the tool again.");
    JsonNode response = all("tool.response.v1").get(0).context();
    assertThat(response.get("status").asText()).isEqualTo("error");
    assertThat(response.get("error_code").asText()).isEqualTo("tool_input_invalid");
  }

  @Test
  void argumentsThatAreJsonButNotAnObjectAreRefused() {
    ScriptedLlmClient llm = ScriptedLlmClient.replying(
        ChatResponse.toolCalls(call("c1", "echo", "[\"hi\"]")), ChatResponse.text("ok"));
    executor(llm).answer(ask("s1", "echo"));
    assertThat(last(llm.requests().get(1).messages()).content())
        .isEqualTo("Error: the arguments for 'echo' must be a JSON object, found array.");
  }

  @Test
  void theRoundLimitEndsTheTurnWithAnAnswerThatSaysSo() {
    ScriptedLlmClient llm = ScriptedLlmClient.answering(r -> ChatResponse.toolCalls(call("c" + r.messages().size(), "echo", "{\"message\":\"again\"}")));
    AgentExecutor executor = AgentExecutor.builder(llm, runner).agent(agent).maxRounds(3).build();

    Breadcrumb answer = executor.answer(ask("s1", "loop forever"));

    assertThat(llm.requests()).hasSize(3);
    assertThat(answer.context().get("status").asText()).isEqualTo("round_limit");
    assertThat(answer.context().get("message").asText()).contains("the round limit is 3");
    assertThat(all("tool.response.v1")).hasSize(3);
  }

  @Test
  void earlierTurnsOfTheSameSessionAreSentAsHistoryAndOtherSessionsAreNot() {
    ScriptedLlmClient llm = ScriptedLlmClient.answering(r -> ChatResponse.text("answer to " + r.lastUserMessage().content()));
    AgentExecutor executor = executor(llm);
    executor.answer(ask("s1", "first"));
    executor.answer(ask("other", "elsewhere"));
    executor.answer(ask("s1", "second"));

    List<ChatMessage> third = llm.requests().get(2).messages();
    assertThat(third.subList(2, third.size())).containsExactly(
        ChatMessage.user("first"),
        ChatMessage.assistant("answer to first", List.of()),
        ChatMessage.user("second"));
  }

  @Test
  void aToolCreatedBetweenTurnsIsOfferedOnTheNextTurn() {
    ScriptedLlmClient llm = ScriptedLlmClient.answering(r -> ChatResponse.text("ok"));
    AgentExecutor executor = executor(llm);
    executor.answer(ask("s1", "one"));
    store.create(BreadcrumbCreate.builder("tool.definition.v1", "Weather")
        .context(RcrtJson.parse("{\"name\":\"weather\",\"description\":\"Current weather\",\"implementation\":{\"type\":\"http\",\"endpoint\":\"https://weather.example/now\"},"
            + "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}}")).build());
    executor.answer(ask("s1", "two"));

    assertThat(functionNames(llm.requests().get(0))).doesNotContain("weather");
    assertThat(functionNames(llm.requests().get(1))).contains("weather");
  }

  @Test
  void startedExecutorsAnswerEachNewUserMessage() throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.answering(r -> ChatResponse.text("hello back"));
    try (Subscription ignored = executor(llm).start()) {
      ask("s9", "hello");
      awaitAnswer("s9");
    }
    List<Breadcrumb> answers = store.search(Selector.allTags("agent:response", "session:s9"), 10, 0);
    assertThat(answers).singleElement().satisfies(a -> assertThat(a.context().get("message").asText()).isEqualTo("hello back"));
  }

  @Test
  void aModelFailureInSubscribedModeIsRecordedAsAnErrorResponse() throws Exception {
    LlmClient down = r -> { throw new LlmException("llm_unreachable", "cannot connect to model endpoint http://x", 0, null, true, null); };
    try (Subscription ignored = executor(down).start()) {
      ask("s2", "anyone there?");
      awaitAnswer("s2");
    }
    Breadcrumb answer = store.search(Selector.allTags("agent:response", "session:s2"), 10, 0).get(0);
    assertThat(answer.context().get("status").asText()).isEqualTo("error");
    assertThat(answer.context().at("/error/code").asText()).isEqualTo("llm_unreachable");
    assertThat(answer.context().get("message").asText()).contains("cannot connect to model endpoint");
  }

  /**
   * Waits up to 60 s for an answer in {@code session}, on the store's event for it: started executors
   * take their steps on their own threads.
   */
  private void awaitAnswer(String session) throws Exception {
    Selector answers = Selector.allTags("agent:response", "session:" + session);
    java.util.concurrent.CountDownLatch answered = new java.util.concurrent.CountDownLatch(1);
    try (var s = store.subscribe(answers, e -> answered.countDown())) { // before the look: an answer written meanwhile is not missed
      if (store.search(answers, 1, 0).isEmpty()) {
        assertThat(answered.await(60, java.util.concurrent.TimeUnit.SECONDS)).as("an answer in " + session).isTrue();
      }
    }
  }

  @Test
  void aModelFailureInDirectModeIsThrownAsTyped() {
    LlmClient down = r -> { throw new LlmException("llm_http_error", "HTTP 500", 500, null, true, null); };
    assertThatThrownBy(() -> executor(down).answer(ask("s1", "hi")))
        .isInstanceOfSatisfying(LlmException.class, e -> assertThat(e.status()).isEqualTo(500));
  }

  @Test
  void aTriggerWithoutContentIsAValidationError() {
    Breadcrumb empty = store.create(BreadcrumbCreate.builder("user.message.v1", "empty").build());
    assertThatThrownBy(() -> executor(ScriptedLlmClient.replying()).answer(empty))
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("context/content: required");
  }

  @Test
  void agentDefinitionsReadBothSchemasAndValidateSelectors() {
    Breadcrumb def = store.create(BreadcrumbCreate.builder("agent.definition.v1", "Smart Chat Agent")
        .context(RcrtJson.parse("""
            {"agent_id":"smart-chat-agent","model":"google/gemini-2.5-flash","system_prompt":"Be helpful.",
             "subscriptions":{"selectors":[{"all_tags":["user:message","chat:input"]},{"schema_name":"tool.catalog.v1","all_tags":["workspace:tools"]}]}}
            """)).build());
    AgentDefinition read = AgentDefinition.fromBreadcrumb(def);
    assertThat(read.agentId()).isEqualTo("smart-chat-agent");
    assertThat(read.options()).isEqualTo(ChatOptions.DEFAULTS);
    assertThat(read.subscriptions()).hasSize(2);
    assertThat(read.subscriptions().get(0).allTags()).containsExactly("user:message", "chat:input");

    Breadcrumb bad = store.create(BreadcrumbCreate.builder("agent.def.v1", "Bad")
        .context(RcrtJson.parse("{\"model\":\"m\",\"system_prompt\":\"p\",\"subscriptions\":{\"selectors\":[{\"context_match\":[{\"path\":\"$.a\",\"op\":\"near\"}]}]}}")).build());
    assertThatThrownBy(() -> AgentDefinition.fromBreadcrumb(bad))
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("context/subscriptions/selectors/0: context_match op: unknown value 'near'");
  }

  private static ChatMessage last(List<ChatMessage> messages) {
    return messages.get(messages.size() - 1);
  }

  private static List<String> functionNames(ChatRequest request) {
    return request.tools().findValuesAsText("name");
  }
}
