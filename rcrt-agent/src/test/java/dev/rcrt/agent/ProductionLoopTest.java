package dev.rcrt.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.llm.ChatMessage;
import dev.rcrt.llm.ChatRequest;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.llm.ToolCall;
import dev.rcrt.testing.ScriptedLlmClient;
import dev.rcrt.testing.TestClock;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The loop's production behaviours with scripted models and the in-memory store. */
class ProductionLoopTest {
  private InMemoryBreadcrumbStore store;
  private ToolRunner runner;
  private AgentDefinition agent;
  private final List<AutoCloseable> closing = new ArrayList<>();

  @BeforeEach
  void setUp() {
    store = InMemoryBreadcrumbStore.builder().eventExecutor(Runnable::run).build();
    BuiltinTools.seed(store);
    runner = runner(b -> {});
    agent = AgentDefinition.fromBreadcrumb(store.create(AgentDefinition.defaultChatAgent()));
  }

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  private ToolRunner runner(Consumer<ToolRunner.Builder> configure) {
    ToolRunner.Builder b = ToolRunner.builder(store);
    configure.accept(b);
    ToolRunner r = b.build();
    closing.add(r);
    return r;
  }

  private AgentExecutor executor(LlmClient llm, Consumer<AgentExecutor.Builder> configure) {
    AgentExecutor.Builder b = AgentExecutor.builder(llm, runner).agent(agent);
    configure.accept(b);
    AgentExecutor e = b.build();
    closing.add(e);
    return e;
  }

  private Breadcrumb ask(String session, String text) {
    return store.create(new UserMessage(session, text).toBreadcrumb());
  }

  private AgentDefinition agentFrom(String json) {
    return AgentDefinition.fromBreadcrumb(store.create(BreadcrumbCreate.builder("agent.def.v1", "agent").context(RcrtJson.parse(json)).build()));
  }

  private static ChatMessage last(List<ChatMessage> messages) {
    return messages.get(messages.size() - 1);
  }

  // ------------------------------------------------------------------ parallel calls

  @Test
  void callsOfOneAnswerRunConcurrentlyAndResultsComeBackInCallOrderEvenWhenOneFails() {
    CountDownLatch bothStarted = new CountDownLatch(2);
    runner = runner(b -> b.handler("meet", (in, ctx) -> {
      bothStarted.countDown();
      boolean together = bothStarted.await(10, TimeUnit.SECONDS);
      return RcrtJson.object().put("who", in.get("who").asText()).put("together", together);
    }));
    store.create(BreadcrumbCreate.builder("tool.definition.v1", "meet").context(RcrtJson.parse("{\"name\":\"meet\"}")).build());
    ScriptedLlmClient llm = ScriptedLlmClient.replying(
        ChatResponse.toolCalls(
            new ToolCall("c1", "meet", "{\"who\":\"first\"}"),
            new ToolCall("c2", "calculator", "{\"expression\":\"1 / 0\"}"),
            new ToolCall("c3", "meet", "{\"who\":\"third\"}")),
        ChatResponse.text("done"));

    executor(llm, b -> {}).answer(ask("p", "go"));

    List<ChatMessage> sent = llm.requests().get(1).messages();
    List<ChatMessage> results = sent.subList(sent.size() - 3, sent.size());
    assertThat(results).extracting(ChatMessage::toolCallId).containsExactly("c1", "c2", "c3");
    assertThat(RcrtJson.parse(results.get(0).content()).get("who").asText()).isEqualTo("first");
    assertThat(RcrtJson.parse(results.get(0).content()).get("together").asBoolean()).as("ran at the same time").isTrue();
    assertThat(results.get(1).content()).startsWith("Error: calculator cannot evaluate '1 / 0'");
    assertThat(RcrtJson.parse(results.get(2).content()).get("who").asText()).isEqualTo("third");
  }

  @Test
  void aToolThatTimesOutIsReportedToTheModelAndTheTurnContinues() {
    TestClock clock = new TestClock();
    runner = runner(b -> b.timeSource(clock).handler("slow", (in, ctx) -> {
      clock.advance(Duration.ofMillis(150));
      Thread.sleep(30_000);
      return RcrtJson.object();
    }));
    store.create(BreadcrumbCreate.builder("tool.definition.v1", "slow").context(RcrtJson.parse("{\"name\":\"slow\",\"capabilities\":{\"timeout\":150}}")).build());
    ScriptedLlmClient llm = ScriptedLlmClient.replying(ChatResponse.toolCalls(new ToolCall("t", "slow", "{}")), ChatResponse.text("it was too slow"));
    Breadcrumb answer = executor(llm, b -> {}).answer(ask("to", "go"));
    assertThat(last(llm.requests().get(1).messages()).content()).isEqualTo("Error: tool 'slow' timed out after 150 ms.");
    assertThat(answer.context().get("message").asText()).isEqualTo("it was too slow");
  }

  // ------------------------------------------------------------------ text protocol

  @Test
  void aTextProtocolAgentGetsNoToolsArrayAndItsJsonRepliesAreRunPlainOrFenced() {
    agent = agentFrom("{\"agent_id\":\"texty\",\"model\":\"small-model\",\"system_prompt\":\"p\",\"tool_protocol\":\"text\"}");
    ScriptedLlmClient llm = ScriptedLlmClient.replying(
        ChatResponse.text("{\"action\": \"invoke_tool\", \"tool\": \"calculator\", \"input\": {\"expression\": \"6 * 7\"}}"),
        ChatResponse.text("Sure.\n```json\n{\"action\":\"invoke_tool\",\"tool\":\"echo\",\"input\":{\"message\":\"hi\"}}\n```"),
        ChatResponse.text("42, and it said hi"));

    Breadcrumb answer = executor(llm, b -> {}).answer(ask("t", "compute"));

    assertThat(answer.context().get("message").asText()).isEqualTo("42, and it said hi");
    ChatRequest first = llm.requests().get(0);
    assertThat(first.tools()).isEmpty();
    assertThat(first.messages().get(1).content()).contains("\"action\": \"invoke_tool\"").contains("Tool: calculator");
    ChatMessage result1 = last(llm.requests().get(1).messages());
    assertThat(result1.role()).isEqualTo("user");
    assertThat(result1.content()).startsWith("Tool results:\ncalculator: {\"result\":42");
    assertThat(last(llm.requests().get(2).messages()).content()).isEqualTo("Tool results:\necho: {\"echo\":\"hi\"}");
    assertThat(store.search(Selector.schema("tool.response.v1"), 10, 0)).hasSize(2);
  }

  @Test
  void aNativeModelThatWritesAToolCallAsTextIsUnderstoodToo() {
    ScriptedLlmClient llm = ScriptedLlmClient.replying(
        ChatResponse.text("```json\n{\"action\": \"invoke_tool\", \"tool\": \"calculator\", \"input\": {\"expression\": \"2+2\"}}\n```"),
        ChatResponse.text("4"));
    assertThat(executor(llm, b -> {}).answer(ask("n", "2+2?")).context().get("message").asText()).isEqualTo("4");
    assertThat(last(llm.requests().get(1).messages()).content()).contains("\"result\":4");
  }

  // ------------------------------------------------------------------ memory

  @Test
  void earlierToolCallsAndResultsAreRebuiltFromTheSessionsBreadcrumbs() {
    ScriptedLlmClient llm = ScriptedLlmClient.replying(
        ChatResponse.toolCalls(new ToolCall("c1", "calculator", "{\"expression\":\"17*23\"}")),
        ChatResponse.text("391"),
        ChatResponse.text("you asked about 17*23"));
    AgentExecutor executor = executor(llm, b -> {});
    executor.answer(ask("m", "17*23?"));
    executor.answer(ask("m", "what did I ask?"));

    List<ChatMessage> second = llm.requests().get(2).messages();
    List<ChatMessage> history = second.subList(2, second.size() - 1);
    assertThat(history).extracting(ChatMessage::role).containsExactly("user", "assistant", "tool", "assistant");
    assertThat(history.get(1).toolCalls()).containsExactly(new ToolCall("c1", "calculator", "{\"expression\":\"17*23\"}"));
    assertThat(history.get(2).toolCallId()).isEqualTo("c1");
    assertThat(RcrtJson.parse(history.get(2).content()).get("result").asInt()).isEqualTo(391);
    assertThat(history.get(3).content()).isEqualTo("391");
  }

  @Test
  void truncationNeverOrphansAToolCallOrItsResult() {
    ScriptedLlmClient llm = ScriptedLlmClient.replying(
        ChatResponse.toolCalls(new ToolCall("a", "echo", "{\"message\":\"1\"}"), new ToolCall("b", "echo", "{\"message\":\"2\"}")),
        ChatResponse.text("echoed"),
        ChatResponse.text("next"));
    AgentExecutor executor = executor(llm, b -> b.historyLimit(3));
    executor.answer(ask("o", "echo twice"));
    executor.answer(ask("o", "again?"));

    List<ChatMessage> second = llm.requests().get(2).messages();
    List<ChatMessage> history = second.subList(2, second.size() - 1);
    assertThat(history).as("the 3-message unit (tool_calls + 2 results) does not fit with the answer, so it is dropped whole")
        .extracting(ChatMessage::role).containsExactly("assistant");
    assertThat(history.get(0).content()).isEqualTo("echoed");
  }

  // ------------------------------------------------------------------ budget and categories

  /** An implementation this runner serves (an HTTP tool), so that the agent is offered the tool; the tests here never call it. */
  private static final String HTTP = "\"implementation\":{\"type\":\"http\",\"endpoint\":\"https://tools.example/call\"}";

  @Test
  void toolsBeyondTheTokenBudgetAreRankedByRelevanceToTheMessage() {
    for (int i = 0; i < 200; i++) {
      store.create(BreadcrumbCreate.builder("tool.definition.v1", "t" + i).context(RcrtJson.parse(
          "{\"name\":\"filler-" + i + "\",\"description\":\"Look up inventory record number " + i + " in the warehouse\",\"category\":\"stock\","
              + HTTP + "}")).build());
    }
    store.create(BreadcrumbCreate.builder("tool.definition.v1", "weather").context(RcrtJson.parse(
        "{\"name\":\"weather\",\"description\":\"Current weather and temperature for a city\",\"category\":\"weather\"," + HTTP + ","
            + "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}}")).build());
    agent = agentFrom("{\"agent_id\":\"budgeted\",\"model\":\"gpt-4o-mini\",\"system_prompt\":\"p\",\"tool_budget_tokens\":400}");
    ScriptedLlmClient llm = ScriptedLlmClient.replying(ChatResponse.text("ok"));

    executor(llm, b -> {}).answer(ask("b", "What is the temperature in Tokyo?"));

    List<String> offered = llm.requests().get(0).tools().findValuesAsText("name");
    assertThat(offered).contains("weather").hasSizeLessThan(10);
  }

  @Test
  void aCategoryFilterOffersOnlyThoseCategories() {
    agent = agentFrom("{\"agent_id\":\"mathy\",\"model\":\"m\",\"system_prompt\":\"p\",\"tool_categories\":[\"math\"]}");
    ScriptedLlmClient llm = ScriptedLlmClient.replying(ChatResponse.text("ok"));
    executor(llm, b -> {}).answer(ask("c", "hi"));
    assertThat(llm.requests().get(0).tools().findValuesAsText("name")).containsExactly("calculator");
  }

  // ------------------------------------------------------------------ context sources

  @Test
  void contextSourcesAreFetchedShapedByHintsAndFormattedAsSectionsToolsFirst() {
    store.create(BreadcrumbCreate.builder("schema.def.v1", "tool.code.v1").tags("defines:tool.code.v1")
        .llmHints(RcrtJson.parse("{\"include\":[\"name\",\"description\",\"input_schema\"],\"exclude\":[\"code\"]}")).build());
    store.create(BreadcrumbCreate.builder("tool.code.v1", "shout").context(RcrtJson.parse(
        "{\"name\":\"shout\",\"description\":\"Upper-case text\",\"code\":{\"language\":\"javascript\",\"source\":\"SECRET_SOURCE\"},"
            + "\"input_schema\":{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}}")).build());
    store.create(BreadcrumbCreate.builder("note.v1", "Groceries").context(RcrtJson.parse("{\"text\":\"milk\"}")).build());
    agent = agentFrom("""
        {"agent_id":"ctx","model":"m","system_prompt":"p","context_sources":{"always":[
          {"type":"schema","schema_name":"note.v1","method":"latest"},
          {"type":"schema","schema_name":"tool.code.v1","method":"all","limit":50}]}}
        """);
    ScriptedLlmClient llm = ScriptedLlmClient.replying(ChatResponse.text("ok"));
    executor(llm, b -> {}).answer(ask("x", "hi"));

    String context = llm.requests().get(0).messages().get(1).content();
    assertThat(context).startsWith("=== TOOLS ===\n\nTool: shout\nUpper-case text\nInput: text (string, required)\n");
    assertThat(context).contains("=== NOTE.V1 ===\n\n- Groceries: {\"text\":\"milk\"}");
    assertThat(context.indexOf("=== TOOLS ===")).isLessThan(context.indexOf("=== NOTE.V1 ==="));
    assertThat(context).doesNotContain("SECRET_SOURCE");
  }

  // ------------------------------------------------------------------ model outcomes

  @Test
  void aRefusalAFilteredAnswerAndACutOffAnswerEndTheRunAsNamedErrorsAndACutOffCallNeverRuns() {
    java.util.concurrent.atomic.AtomicInteger ran = new java.util.concurrent.atomic.AtomicInteger();
    runner = runner(b -> b.tool("pay", "Pays someone", java.util.Map.class, java.util.Map.class, in -> {
      ran.incrementAndGet();
      return java.util.Map.of("paid", true);
    }));
    ChatResponse refused = new ChatResponse(ChatMessage.assistant(null, List.of()), "stop", null, null, "I can't help with that.");
    ChatResponse filtered = new ChatResponse(ChatMessage.assistant("Here is how", List.of()), "content_filter", null, null);
    ChatResponse cutText = new ChatResponse(ChatMessage.assistant("Tokyo, Del", List.of()), "length", null, null);
    ChatResponse cutCall = new ChatResponse(ChatMessage.assistant(null, List.of(new ToolCall("c1", "pay", "{\"to\": \"bob\", \"amo"))), "length", null, null);
    java.util.Map<String, ChatResponse> byQuestion = java.util.Map.of("refuse", refused, "filter", filtered, "cut", cutText, "call", cutCall);
    AgentExecutor executor = executor(ScriptedLlmClient.answering(r -> byQuestion.get(last(r.messages()).content())), b -> {});

    for (var expected : java.util.Map.of("refuse", AgentResponse.Error.MODEL_REFUSED, "filter", AgentResponse.Error.MODEL_CONTENT_FILTERED,
        "cut", AgentResponse.Error.MODEL_TRUNCATED, "call", AgentResponse.Error.MODEL_TRUNCATED).entrySet()) {
      AgentResponse answer = AgentResponse.fromBreadcrumb(executor.answer(ask("o-" + expected.getKey(), expected.getKey())));
      assertThat(answer.status()).as(expected.getKey()).isEqualTo(AgentResponse.Status.ERROR);
      assertThat(answer.error().code()).as(expected.getKey()).isEqualTo(expected.getValue());
    }
    assertThat(AgentResponse.fromBreadcrumb(answerIn("o-refuse")).message()).contains("I can't help with that.");
    assertThat(AgentResponse.fromBreadcrumb(answerIn("o-cut")).message()).contains("Tokyo, Del");
    assertThat(AgentResponse.fromBreadcrumb(answerIn("o-call")).message()).contains("'pay'", "no call of it was run");
    assertThat(ran).as("a half-written call never runs").hasValue(0);
    assertThat(store.search(Selector.schema("tool.request.v1"), 10, 0)).isEmpty();
  }

  private Breadcrumb answerIn(String session) {
    return store.search(Selector.allTags("agent:response", "session:" + session), 1, 0).get(0);
  }

  // ------------------------------------------------------------------ agents as tools

  @Test
  void enabledSpecialistsAreOfferedToThePrimaryAndRunTheirOwnTurnDisabledOnesAreUnknown() {
    agent = agentFrom("{\"agent_id\":\"assistant\",\"model\":\"primary-model\",\"system_prompt\":\"You route.\",\"is_primary\":true}");
    agentFrom("{\"agent_id\":\"web_search\",\"model\":\"search-model\",\"system_prompt\":\"You search.\",\"enabled\":true,"
        + "\"toolDescription\":\"Search the web for current information\"}");
    agentFrom("{\"agent_id\":\"code_gen\",\"model\":\"code-model\",\"system_prompt\":\"You code.\",\"enabled\":false,\"description\":\"Write code\"}");
    ScriptedLlmClient llm = ScriptedLlmClient.answering(r -> switch (r.model()) {
      case "search-model" -> ChatResponse.text("Tokyo: 22°C, sunny");
      case "primary-model" -> {
        ChatMessage lastMessage = last(r.messages());
        if ("user".equals(lastMessage.role())) {
          yield ChatResponse.toolCalls(new ToolCall("s1", "web_search", "{\"message\":\"weather Tokyo\"}"), new ToolCall("s2", "code_gen", "{\"message\":\"x\"}"));
        }
        yield ChatResponse.text("It is 22°C and sunny in Tokyo.");
      }
      default -> throw new IllegalStateException("unexpected model " + r.model());
    });

    Breadcrumb answer = executor(llm, b -> {}).answer(ask("main", "Weather in Tokyo?"));

    assertThat(answer.context().get("message").asText()).isEqualTo("It is 22°C and sunny in Tokyo.");
    ChatRequest first = llm.requests().get(0);
    JsonNode webSearch = null;
    for (JsonNode t : first.tools()) {
      if (t.at("/function/name").asText().equals("web_search")) {
        webSearch = t;
      }
    }
    assertThat(first.tools().findValuesAsText("name")).contains("web_search").doesNotContain("code_gen", "assistant");
    assertThat(webSearch.at("/function/description").asText()).isEqualTo("Search the web for current information");
    assertThat(webSearch.at("/function/parameters/required/0").asText()).isEqualTo("message");

    ChatRequest specialistRequest = llm.requests().stream().filter(r -> r.model().equals("search-model")).findFirst().orElseThrow();
    assertThat(specialistRequest.messages().get(0).content()).isEqualTo("You search.");
    assertThat(last(specialistRequest.messages()).content()).isEqualTo("weather Tokyo");
    List<ChatMessage> back = llm.requests().get(llm.requests().size() - 1).messages();
    assertThat(back.get(back.size() - 2).content()).isEqualTo("Tokyo: 22°C, sunny");
    assertThat(back.get(back.size() - 1).content()).startsWith("Error: unknown tool 'code_gen'");
    // the specialist's turn is a child run: it answers the parent's stored call, in a sub-session, under the parent's run
    Breadcrumb call = store.search(Selector.schema("tool.request.v1").withAllTags("run:" + answer.tagValue("run:").orElseThrow()), 10, 0)
        .stream().filter(r -> "web_search".equals(r.contextText("tool"))).findFirst().orElseThrow();
    List<Breadcrumb> child = store.search(Selector.schema("agent.response.v1").withAllTags("session:main/web_search", "agent:response"), 10, 0);
    assertThat(child).singleElement().satisfies(a -> {
      assertThat(a.contextText("trigger_id")).isEqualTo(call.id());
      assertThat(a.tags()).contains("parent_run:" + answer.tagValue("run:").orElseThrow(), "run:" + Run.idOf("web_search", call.id()));
    });
    assertThat(store.search(Selector.schema("tool.response.v1").withAllTags("request:" + call.id()), 10, 0)).singleElement()
        .satisfies(r -> assertThat(r.context().at("/output/run_id").asText()).isEqualTo(Run.idOf("web_search", call.id())));
    assertThat(store.search(Selector.allTags("session:main/web_search"), 10, 0)).extracting(Breadcrumb::schemaName)
        .doesNotContain("user.message.v1"); // no message another served agent would answer
  }

  @Test
  void aSpecialistThatTakesTooLongIsReportedAndTheTurnContinues() {
    TestClock clock = new TestClock();
    runner = runner(b -> b.timeSource(clock));
    agent = agentFrom("{\"agent_id\":\"boss\",\"model\":\"primary\",\"system_prompt\":\"p\",\"is_primary\":true}");
    agentFrom("{\"agent_id\":\"slow\",\"model\":\"slow-model\",\"system_prompt\":\"p\",\"enabled\":true}");
    CountDownLatch never = new CountDownLatch(1);
    ScriptedLlmClient llm = ScriptedLlmClient.answering(r -> {
      if (r.model().equals("slow-model")) {
        clock.advance(Duration.ofMillis(200));
        try {
          never.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return ChatResponse.text("late");
      }
      return "user".equals(last(r.messages()).role())
          ? ChatResponse.toolCalls(new ToolCall("s", "slow", "{\"message\":\"hurry\"}"))
          : ChatResponse.text("gave up on slow");
    });
    Breadcrumb answer = executor(llm, b -> b.agentsAsTools(2, Duration.ofMillis(200))).answer(ask("s", "go"));
    assertThat(answer.context().get("message").asText()).isEqualTo("gave up on slow");
    List<ChatMessage> back = llm.requests().get(llm.requests().size() - 1).messages();
    assertThat(last(back).content()).isEqualTo("Error: agent 'slow' did not answer within 200 ms.");
    assertThat(never.getCount()).as("the specialist's turn was stopped, not waited for").isEqualTo(1);
  }

  // ------------------------------------------------------------------ event-driven mode

  @Test
  void inEventModeARunnerOnAnotherThreadAnswersTheRequestAndTheTrailIsTheSame() {
    InMemoryBreadcrumbStore async = new InMemoryBreadcrumbStore();
    BuiltinTools.seed(async);
    ToolRunner listening = ToolRunner.builder(async).build();
    closing.add(listening);
    Subscription subscription = listening.listen();
    closing.add(subscription);
    ToolRunner local = ToolRunner.builder(async).build();
    closing.add(local);
    ScriptedLlmClient llm = ScriptedLlmClient.replying(
        ChatResponse.toolCalls(new ToolCall("e1", "calculator", "{\"expression\":\"6*7\"}")), ChatResponse.text("42"));
    AgentExecutor executor = AgentExecutor.builder(llm, local).agent(agent).toolMode(AgentExecutor.ToolMode.EVENT, Duration.ofSeconds(10)).build();
    closing.add(executor);

    Breadcrumb answer = executor.answer(async.create(new UserMessage("ev", "6*7?").toBreadcrumb()));

    assertThat(answer.context().get("message").asText()).isEqualTo("42");
    assertThat(RcrtJson.parse(last(llm.requests().get(1).messages()).content()).get("result").asInt()).isEqualTo(42);
    Breadcrumb response = async.search(Selector.schema("tool.response.v1"), 1, 0).get(0);
    Breadcrumb request = async.search(Selector.schema("tool.request.v1"), 1, 0).get(0);
    assertThat(response.context().get("request_id").asText()).isEqualTo(request.id());
    assertThat(response.tags()).contains("session:ev");
  }

  @Test
  @Timeout(30)
  void inEventModeNoListeningRunnerMeansATimeoutMessageNotAHang() throws Exception {
    TestClock clock = new TestClock();
    store = InMemoryBreadcrumbStore.builder().clock(clock).eventExecutor(Runnable::run).build(); // records and waits on one clock
    BuiltinTools.seed(store);
    agent = AgentDefinition.fromBreadcrumb(store.create(AgentDefinition.defaultChatAgent()));
    runner = runner(b -> b.timeSource(clock));
    ScriptedLlmClient llm = ScriptedLlmClient.replying(
        ChatResponse.toolCalls(new ToolCall("e1", "calculator", "{\"expression\":\"1\"}")), ChatResponse.text("nobody answered"));
    AgentExecutor executor = executor(llm, b -> b.toolMode(AgentExecutor.ToolMode.EVENT, Duration.ofSeconds(60)));
    java.util.concurrent.CountDownLatch requested = new java.util.concurrent.CountDownLatch(1);
    CompletableFuture<Breadcrumb> turn;
    try (var requests = store.subscribe(dev.rcrt.core.Selector.schema("tool.request.v1"), e -> requested.countDown())) {
      turn = CompletableFuture.supplyAsync(() -> executor.answer(ask("q", "1?")));
      assertThat(requested.await(30, java.util.concurrent.TimeUnit.SECONDS)).as("the call's request, recorded for a runner").isTrue();
    }
    assertThat(new Runs(store).list(1, Run.Status.WAITING_FOR_TOOLS)).as("the run waits for its tool").hasSize(1);
    clock.advance(Duration.ofSeconds(59));
    assertThat(turn).as("still waiting a second before its limit").isNotDone();
    clock.advance(Duration.ofSeconds(1));
    Breadcrumb answer = turn.get(10, TimeUnit.SECONDS);
    assertThat(answer.context().get("message").asText()).isEqualTo("nobody answered");
    assertThat(last(llm.requests().get(1).messages()).content())
        .startsWith("Error: tool 'calculator' was not run: no tool runner answered request")
        .endsWith("within 60000 ms; none may be listening on this store.");
    assertThat(store.search(Selector.schema("tool.request.v1"), 10, 0)).hasSize(1);
  }

  // ------------------------------------------------------------------ approval

  private void sensitiveTool(dev.rcrt.tools.ApprovalHandler approval) {
    runner = runner(b -> b.handler("wire-money", (in, ctx) -> RcrtJson.object().put("sent", true)).approvalHandler(approval));
    store.create(BreadcrumbCreate.builder("tool.definition.v1", "wire").context(RcrtJson.parse("{\"name\":\"wire-money\",\"requires_approval\":true}")).build());
  }

  @Test
  void aToolThatRequiresApprovalRunsOnlyWhenTheHandlerApproves() {
    List<String> asked = new ArrayList<>();
    sensitiveTool((req, tool) -> asked.add(tool.name()) && true);
    ScriptedLlmClient yes = ScriptedLlmClient.replying(ChatResponse.toolCalls(new ToolCall("w", "wire-money", "{}")), ChatResponse.text("sent"));
    executor(yes, b -> {}).answer(ask("a1", "pay"));
    assertThat(asked).containsExactly("wire-money");
    assertThat(RcrtJson.parse(last(yes.requests().get(1).messages()).content()).get("sent").asBoolean()).isTrue();
  }

  @Test
  void aDeniedCallGoesBackToTheModelAsAnErrorAndIsRecordedAsDenied() {
    sensitiveTool((req, tool) -> false);
    ScriptedLlmClient llm = ScriptedLlmClient.replying(ChatResponse.toolCalls(new ToolCall("w", "wire-money", "{}")), ChatResponse.text("not allowed"));
    executor(llm, b -> {}).answer(ask("a2", "pay"));
    assertThat(last(llm.requests().get(1).messages()).content()).startsWith("Error: the call to 'wire-money' was not approved");
    ToolResponse recorded = ToolResponse.fromBreadcrumb(store.search(Selector.schema("tool.response.v1"), 1, 0).get(0));
    assertThat(recorded.errorCode()).isEqualTo("tool_denied");
  }

  @Test
  void aHostPolicyCanRequireApprovalAndAHandlerThatRefusesDeniesTheCall() {
    ScriptedLlmClient llm = ScriptedLlmClient.replying(ChatResponse.toolCalls(new ToolCall("c", "calculator", "{\"expression\":\"1\"}")), ChatResponse.text("ok"));
    runner = runner(b -> b.approvalPolicy(t -> t.name().equals("calculator")).approvalHandler((r, t) -> false));
    executor(llm, b -> {}).answer(ask("a3", "1"));
    assertThat(last(llm.requests().get(1).messages()).content()).startsWith("Error: the call to 'calculator' was not approved");
  }

  // ------------------------------------------------------------------ streaming

  @Test
  void theStreamListenerIsPassedToTheModelForTheTopLevelTurn() {
    List<String> tokens = new ArrayList<>();
    LlmClient streaming = new LlmClient() {
      @Override
      public ChatResponse chat(dev.rcrt.llm.ChatRequest request) {
        throw new AssertionError("the top-level turn is asked with its stream listener");
      }

      @Override
      public ChatResponse chat(dev.rcrt.llm.ChatRequest request, dev.rcrt.llm.StreamListener listener) {
        listener.onToken("Hel");
        listener.onToken("lo");
        return ChatResponse.text("Hello");
      }
    };
    executor(streaming, b -> b.streamListener(tokens::add)).answer(ask("st", "hi"));
    assertThat(String.join("", tokens)).isEqualTo("Hello");
  }

  /** A model that streams each answer in the fragments given, in turn; a request asked without a listener is counted. */
  private static final class FragmentedModel implements LlmClient {
    private final List<List<String>> fragments;
    private final List<ChatResponse> answers;
    private final java.util.function.IntConsumer between;
    int unstreamed;
    private int asked;

    FragmentedModel(List<List<String>> fragments, List<ChatResponse> answers, java.util.function.IntConsumer between) {
      this.fragments = fragments;
      this.answers = answers;
      this.between = between;
    }

    @Override
    public synchronized ChatResponse chat(ChatRequest request) {
      unstreamed++;
      return answers.get(asked++);
    }

    @Override
    public synchronized ChatResponse chat(ChatRequest request, dev.rcrt.llm.StreamListener listener) {
      List<String> parts = fragments.get(asked);
      for (int i = 0; i < parts.size(); i++) {
        listener.onToken(parts.get(i));
        between.accept(i);
      }
      return answers.get(asked++);
    }
  }

  @Test
  void aFollowedRunGetsEachRoundsTextAsItStreamsScrubbedAndNumberedAsItsRecordsAreWithoutAPartOfASecret() {
    String key = "sk-live-0123456789";
    runner.addSecretValue(key);
    FragmentedModel model = new FragmentedModel(
        List.of(List.of("Let me ", "check. "), List.of("It is 2; the key sk-li", "ve-01", "23456789 stays ", "mine.")),
        List.of(new ChatResponse(ChatMessage.assistant("Let me check. ", List.of(new ToolCall("c1", "calculator", "{\"expression\":\"1 + 1\"}"))),
                "tool_calls", null, null),
            ChatResponse.text("It is 2; the key " + key + " stays mine.")),
        i -> {});
    AgentExecutor executor = executor(model, b -> {});
    Breadcrumb question = ask("followed", "what is 1 + 1?");
    List<String> told = new ArrayList<>();
    try (Subscription followed = executor.streamText(executor.runIdOf(question), (round, delta) -> told.add(round + ":" + delta))) {
      executor.answer(question);
    }

    assertThat(model.unstreamed).as("a followed run's rounds are streamed").isZero();
    assertThat(told).allSatisfy(t -> assertThat(t).doesNotContain("sk-").doesNotContain("ve-01").doesNotContain("23456789"));
    assertThat(told.stream().filter(t -> t.startsWith("1:")).map(t -> t.substring(2))).containsExactly("Let me ", "check. ");
    String second = String.join("", told.stream().filter(t -> t.startsWith("2:")).map(t -> t.substring(2)).toList());
    assertThat(second).isEqualTo("It is 2; the key [secret] stays mine.");
    Run run = new Runs(store, runner.policy(), runner.timeSource()).show(executor.runIdOf(question)).orElseThrow();
    assertThat(run.records()).filteredOn(b -> "tool_calls".equals(b.contextText("status")))
        .singleElement().satisfies(b -> assertThat(b.contextText("message")).isEqualTo("Let me check. "));
    assertThat(run.answer().message()).as("the records tell the same text").isEqualTo(second);
    assertThat(run.answer().rounds()).isEqualTo(2);

    Breadcrumb unfollowed = ask("unfollowed", "again");
    FragmentedModel quiet = new FragmentedModel(List.of(List.of("x")), List.of(ChatResponse.text("fine")), i -> {});
    executor(quiet, b -> {}).answer(unfollowed);
    assertThat(quiet.unstreamed).as("a run nobody follows is asked without streaming").isEqualTo(1);
  }

  @Test
  @Timeout(30)
  void aFollowerThatJoinsMidRoundIsFirstGivenTheTextSoFarAndOneThatLeftIsToldNothingMore() throws Exception {
    CountDownLatch firstFragmentOut = new CountDownLatch(1);
    CountDownLatch secondJoined = new CountDownLatch(1);
    FragmentedModel model = new FragmentedModel(List.of(List.of("Hel", "lo ", "there")), List.of(ChatResponse.text("Hello there")), i -> {
      if (i == 0) {
        firstFragmentOut.countDown();
        try {
          secondJoined.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    });
    AgentExecutor executor = executor(model, b -> {});
    Breadcrumb question = ask("joined", "hi");
    String runId = executor.runIdOf(question);
    List<String> first = new java.util.concurrent.CopyOnWriteArrayList<>();
    List<String> second = new java.util.concurrent.CopyOnWriteArrayList<>();
    Subscription leaving = executor.streamText(runId, (round, delta) -> first.add(delta));
    java.util.concurrent.CompletionStage<AgentResponse> answer = executor.answerAsync(question);
    assertThat(firstFragmentOut.await(20, TimeUnit.SECONDS)).isTrue();
    leaving.close();
    try (Subscription joined = executor.streamText(runId, (round, delta) -> second.add(round + ":" + delta))) {
      secondJoined.countDown();
      assertThat(answer.toCompletableFuture().get(20, TimeUnit.SECONDS).message()).isEqualTo("Hello there");
    }
    assertThat(first).containsExactly("Hel");
    assertThat(second).containsExactly("1:Hel", "1:lo ", "1:there");
  }
}
