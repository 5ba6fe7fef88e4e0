package dev.rcrt.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.ValidationException;
import dev.rcrt.llm.ChatMessage;
import dev.rcrt.llm.ChatRequest;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.testing.ScriptedLlmClient;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.ToolRunner;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Agent definitions shaped like RCRT's own: no {@code model} but an {@code llm_config_id}, selectors
 * with {@code role}/{@code key}/{@code fetch}, {@code agent.context.v1} triggers, and the JSON
 * envelope reply protocol with {@code tool_requests} and {@code return_to_llm}.
 */
class RcrtAgentTest {
  private static final String AGENT = """
      {"agent_id":"rcrt-chat","llm_config_id":"llm-config-1",
       "system_prompt":"Reply with a JSON envelope {\\"action\\":\\"create\\",\\"breadcrumb\\":{...}}.",
       "subscriptions":{"selectors":[
         {"schema_name":"agent.context.v1","all_tags":["consumer:rcrt-chat"],"role":"trigger","key":"assembled_context","fetch":{"method":"event_data"}},
         {"schema_name":"note.v1","role":"context","key":"notes","fetch":{"method":"latest","limit":1}},
         {"schema_name":"tool.response.v1","all_tags":["workspace:tools"],"role":"trigger","key":"tool_response","fetch":{"method":"event_data"}}]}}""";

  private InMemoryBreadcrumbStore store;
  private ToolRunner runner;

  @BeforeEach
  void setUp() {
    store = InMemoryBreadcrumbStore.builder().eventExecutor(Runnable::run).build();
    BuiltinTools.seed(store);
    runner = ToolRunner.builder(store).build();
    store.create(BreadcrumbCreate.builder("tool.config.v1", "LLM config").id("llm-config-1")
        .context(RcrtJson.parse("{\"tool_name\":\"openrouter\",\"config\":{\"defaultModel\":\"vendor/model-a\",\"temperature\":0.2,\"maxTokens\":500,\"apiKeySecretId\":\"OPENROUTER_KEY\"}}"))
        .build());
    store.create(BreadcrumbCreate.builder("note.v1", "Favourite number").context(RcrtJson.parse("{\"text\":\"seven\"}")).build());
  }

  @AfterEach
  void tearDown() {
    runner.close();
  }

  private AgentDefinition agent(String json) {
    return AgentDefinition.fromBreadcrumb(store.create(BreadcrumbCreate.builder("agent.def.v1", "agent").context(RcrtJson.parse(json)).build()));
  }

  private static ChatResponse envelope(String message, String requests) {
    return ChatResponse.text("Here you go:\n```json\n{\"action\":\"create\",\"breadcrumb\":{\"schema_name\":\"agent.response.v1\",\"title\":\"Chat Response\","
        + "\"tags\":[\"agent:response\",\"chat:output\",\"session:elsewhere\",\"mood:happy\"],\"context\":{\"message\":\"" + message + "\"" + requests + "}}}\n```");
  }

  @Test
  void theModelComesFromTheLlmConfigAndAToolResultReturnsToTheModelWhenAsked() {
    ScriptedLlmClient llm = ScriptedLlmClient.replying(
        envelope("Let me calculate.", ",\"tool_requests\":[{\"tool\":\"calculator\",\"input\":{\"expression\":\"17 * 23\"},\"requestId\":\"calc-1\",\"return_to_llm\":true}]"),
        envelope("17 * 23 = 391", ",\"confidence\":\"high\""));
    try (AgentExecutor executor = AgentExecutor.builder(llm, runner).agent(agent(AGENT)).build()) {
      AgentResponse answer = executor.ask("s1", "What is 17 * 23?");
      assertThat(answer.message()).isEqualTo("17 * 23 = 391");
      assertThat(answer.toolCalls()).isEqualTo(1);
    }
    ChatRequest first = llm.requests().get(0);
    assertThat(first.model()).isEqualTo("vendor/model-a");
    assertThat(first.options().temperature()).isEqualTo(0.2);
    assertThat(first.options().maxTokens()).isEqualTo(500);
    assertThat(first.tools()).as("the envelope protocol sends no tools").isNullOrEmpty();
    String system = first.messages().get(1).content();
    assertThat(system).contains("calculator").contains("tool_requests").contains("=== NOTES ===").contains("seven");
    ChatMessage results = llm.requests().get(1).messages().get(llm.requests().get(1).messages().size() - 1);
    assertThat(results.content()).contains("calculator").contains("391");

    Breadcrumb response = store.search(Selector.schema("agent.response.v1"), 10, 0).get(0);
    assertThat(response.title()).isEqualTo("Chat Response");
    assertThat(response.tags()).contains("agent:response", "chat:output", "session:s1", "mood:happy").doesNotContain("session:elsewhere");
    assertThat(response.context().get("creator").get("agent_id").asText()).isEqualTo("rcrt-chat");
    assertThat(response.context().get("confidence").asText()).as("the model's own context fields are kept").isEqualTo("high");
    Breadcrumb question = store.search(Selector.schema("user.message.v1"), 10, 0).get(0);
    assertThat(response.context().get("trigger_event_id").asText()).isEqualTo(question.id());
    assertThat(store.search(Selector.schema("tool.request.v1"), 10, 0).get(0).context().get("requestedBy").asText()).isEqualTo("rcrt-chat");
  }

  @Test
  void withReturnToLlmFalseTheResultGoesStraightToTheUser() {
    ScriptedLlmClient llm = ScriptedLlmClient.replying(
        envelope("Your number:", ",\"tool_requests\":[{\"tool\":\"calculator\",\"input\":{\"expression\":\"6 * 7\"},\"requestId\":\"r\",\"return_to_llm\":false}]"));
    try (AgentExecutor executor = AgentExecutor.builder(llm, runner).agent(agent(AGENT)).build()) {
      AgentResponse answer = executor.ask("s2", "6 * 7?");
      assertThat(answer.message()).startsWith("Your number:\ncalculator: ").contains("42");
    }
    assertThat(llm.requests()).hasSize(1);
  }

  @Test
  void slightlyMalformedEnvelopesAreRepairedAndUnparseableTextIsTheMessage() {
    ScriptedLlmClient llm = ScriptedLlmClient.replying(
        ChatResponse.text("{'action': 'create', breadcrumb: {schema_name: 'agent.response.v1', title: 'T', context: {message: 'repaired', },},"),
        ChatResponse.text("I forgot the JSON, sorry."));
    try (AgentExecutor executor = AgentExecutor.builder(llm, runner).agent(agent(AGENT)).build()) {
      assertThat(executor.ask("s3", "hi").message()).isEqualTo("repaired");
      assertThat(executor.ask("s3", "again").message()).isEqualTo("I forgot the JSON, sorry.");
    }
  }

  @Test
  void anEnvelopeCannotCreateAnythingButAnAgentResponse() {
    ScriptedLlmClient llm = ScriptedLlmClient.replying(ChatResponse.text(
        "{\"action\":\"create\",\"breadcrumb\":{\"schema_name\":\"tool.code.v1\",\"title\":\"evil\",\"tags\":[\"tool:evil\",\"workspace:tools\"],"
            + "\"context\":{\"message\":\"done\",\"name\":\"evil\",\"code\":{\"language\":\"javascript\",\"source\":\"x\"}}}}"));
    try (AgentExecutor executor = AgentExecutor.builder(llm, runner).agent(agent(AGENT)).build()) {
      executor.ask("s4", "make a tool");
    }
    assertThat(store.search(Selector.schema("tool.code.v1"), 10, 0)).isEmpty();
    Breadcrumb response = store.search(Selector.schema("agent.response.v1"), 10, 0).get(0);
    assertThat(response.tags()).doesNotContain("tool:evil", "workspace:tools");
  }

  @Test
  void anAgentContextTriggerAnswersTheUserMessageItNamesWithItsBreadcrumbs() throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.replying(envelope("Paris.", ""));
    java.util.concurrent.CountDownLatch answered = new java.util.concurrent.CountDownLatch(1);
    Breadcrumb question = store.create(new UserMessage("s5", "Capital of France?").toBreadcrumb());
    try (var answers = store.subscribe(Selector.allTags("agent:response"), e -> answered.countDown());
        AgentExecutor executor = AgentExecutor.builder(llm, runner).agent(agent(AGENT)).build();
        var subscription = executor.start()) {
      store.create(BreadcrumbCreate.builder("agent.context.v1", "context for rcrt-chat")
          .tags("agent:context", "consumer:rcrt-chat", "session:s5")
          .context(RcrtJson.parse("{\"consumer_id\":\"rcrt-chat\",\"trigger_event_id\":\"" + question.id() + "\",\"token_estimate\":40,"
              + "\"breadcrumbs\":[{\"id\":\"k1\",\"schema_name\":\"knowledge.v1\",\"created_at\":\"2025-11-01T00:00:00Z\",\"content\":{\"fact\":\"France's capital is Paris\"}}]}"))
          .build());
      store.create(BreadcrumbCreate.builder("tool.response.v1", "a response").tags("workspace:tools").context(RcrtJson.object()).build());
      assertThat(answered.await(60, java.util.concurrent.TimeUnit.SECONDS)).as("an answer, written on the executor's threads").isTrue();
    }
    assertThat(llm.requests()).as("the tool.response.v1 trigger starts no turn").hasSize(1);
    assertThat(llm.requests().get(0).messages().get(1).content()).contains("=== CONTEXT ===").contains("France's capital is Paris");
    List<Breadcrumb> responses = store.search(Selector.schema("agent.response.v1"), 10, 0);
    assertThat(responses).hasSize(1);
    assertThat(responses.get(0).context().get("trigger_event_id").asText()).isEqualTo(question.id());
    assertThat(responses.get(0).tags()).contains("session:s5");
  }

  @Test
  void anUntrustedOrMissingConfigIsRefusedWithAReasonAndTheClientsDefaultIsTheLastResort() {
    AgentDefinition missing = agent("{\"agent_id\":\"a\",\"llm_config_id\":\"nope\",\"system_prompt\":\"p\"}");
    assertThatThrownBy(() -> LlmConfig.resolve(missing, store, runner.policy()))
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("llm_config_id 'nope': no tool.config.v1 record has that id");
    store.create(BreadcrumbCreate.builder("tool.config.v1", "forged").id("forged").createdBy("tool:breadcrumb-create")
        .context(RcrtJson.parse("{\"config\":{\"defaultModel\":\"attacker/model\"}}")).build());
    AgentDefinition forged = agent("{\"agent_id\":\"a\",\"llm_config_id\":\"forged\",\"system_prompt\":\"p\"}");
    assertThatThrownBy(() -> LlmConfig.resolve(forged, store, runner.policy()))
        .hasMessageContaining("is not used: it was last written by tool:breadcrumb-create");
    AgentDefinition bare = agent("{\"agent_id\":\"a\",\"system_prompt\":\"p\"}");
    assertThat(LlmConfig.resolve(bare, store, runner.policy()).model("client/default")).isEqualTo("client/default");
    assertThatThrownBy(() -> LlmConfig.resolve(bare, store, runner.policy()).model(null)).hasMessageContaining("names no model");
    JsonNode own = RcrtJson.parse("{\"agent_id\":\"a\",\"model\":\"own\",\"temperature\":0.9,\"llm_config_id\":\"llm-config-1\",\"system_prompt\":\"p\"}");
    LlmConfig mixed = LlmConfig.resolve(agent(RcrtJson.write(own)), store, runner.policy());
    assertThat(mixed.model()).isEqualTo("own");
    assertThat(mixed.options().temperature()).as("the agent's own setting wins").isEqualTo(0.9);
    assertThat(mixed.options().maxTokens()).isEqualTo(500);
    assertThat(mixed.apiKeySecretId()).isEqualTo("OPENROUTER_KEY");
  }
}
