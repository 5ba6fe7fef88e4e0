package dev.rcrt.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.RcrtJson;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.ToolCall;
import dev.rcrt.testing.ScriptedLlmClient;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExamplesTest {

  @Test
  void theEmbeddedAgentRunsTheCalculatorAndAnswers() {
    ScriptedLlmClient llm = ScriptedLlmClient.replying(
        ChatResponse.toolCalls(new ToolCall("c1", "calculator", "{\"expression\":\"17 * 23\"}")),
        ChatResponse.text("391"));
    assertThat(EmbeddedAgentExample.run(llm)).isEqualTo("391");
    String toolResult = llm.requests().get(1).messages().get(llm.requests().get(1).messages().size() - 1).content();
    assertThat(RcrtJson.parse(toolResult).get("result").asInt()).isEqualTo(391);
  }

  @Test
  void theCustomToolIsDiscoveredAndCalledByTheAgent() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream old = System.out;
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    try {
      CustomToolExample.main(new String[0]);
    } finally {
      System.setOut(old);
    }
    assertThat(out.toString(StandardCharsets.UTF_8).strip()).isEqualTo("It has 4 words.");
  }

  @Test
  void theEventDrivenExampleAnswersThroughAListeningRunner() {
    var store = new dev.rcrt.core.InMemoryBreadcrumbStore();
    dev.rcrt.tools.BuiltinTools.seed(store);
    var agent = dev.rcrt.agent.AgentDefinition.fromBreadcrumb(store.create(dev.rcrt.agent.AgentDefinition.defaultChatAgent()));
    ScriptedLlmClient llm = ScriptedLlmClient.replying(
        ChatResponse.toolCalls(new ToolCall("c1", "calculator", "{\"expression\":\"2 ^ 5\"}")), ChatResponse.text("32"));
    assertThat(ProductionLoopExample.eventDriven(llm, store, agent, "2^5?").message()).isEqualTo("32");
    String result = llm.requests().get(1).messages().get(llm.requests().get(1).messages().size() - 1).content();
    assertThat(RcrtJson.parse(result).get("result").asInt()).isEqualTo(32);
  }

  @Test
  void theAzureClientAndTheCodedAgentAreWhatTheReadmeSays() {
    assertThat(ProductionLoopExample.azure("acme", "gpt4o", "key").endpoint()).hasToString(
        "https://acme.openai.azure.com/openai/deployments/gpt4o/chat/completions?api-version=2024-10-21");
    var store = new dev.rcrt.core.InMemoryBreadcrumbStore();
    var agent = ProductionLoopExample.supportBot(store);
    var stored = store.search(dev.rcrt.core.Selector.allTags("agent:support-bot"), 1, 0).get(0);
    assertThat(dev.rcrt.agent.AgentDefinition.fromBreadcrumb(stored)).isEqualTo(agent);
    assertThat(agent.options().maxTokens()).isEqualTo(400);
  }

  @Test
  void theTestClockEndsACallAtItsLimitWithoutWaiting() {
    var store = new dev.rcrt.core.InMemoryBreadcrumbStore();
    store.create(dev.rcrt.core.BreadcrumbCreate.builder("tool.definition.v1", "slow")
        .context(RcrtJson.parse("{\"name\":\"slow\",\"limits\":{\"timeout_ms\":30000}}")).build());
    long started = System.nanoTime();
    assertThat(TestingExample.timeoutWithoutWaiting(store)).isEqualTo("tool_timeout");
    assertThat(java.time.Duration.ofNanos(System.nanoTime() - started)).isLessThan(java.time.Duration.ofSeconds(30));
  }

  @Test
  void theAnnotatedRailToolPricesATrip() {
    var store = new dev.rcrt.core.InMemoryBreadcrumbStore();
    try (var runner = AnnotatedToolExample.runner(store)) {
      var r = runner.call(dev.rcrt.tools.ToolRequest.of("price", RcrtJson.parse("{\"trip\":{\"from\":\"Oslo\",\"to\":\"Bergen\",\"passengers\":2}}"), "me"));
      assertThat(RcrtJson.write(r.output())).isEqualTo("85.0");
    }
  }

  @Test
  void theAgUiExampleStreamsARunAndServesTheConsole() throws Exception {
    var store = new dev.rcrt.core.InMemoryBreadcrumbStore();
    dev.rcrt.tools.BuiltinTools.seed(store);
    store.create(dev.rcrt.agent.AgentDefinition.defaultChatAgent());
    var llm = dev.rcrt.testing.ScriptedLlmClient.answering(r -> dev.rcrt.llm.ChatResponse.text("hello from the agent"));
    try (var server = AgUiExample.serve(store, llm)) {
      var http = java.net.http.HttpClient.newHttpClient();
      String events = http.send(java.net.http.HttpRequest.newBuilder(server.endpoint("default-chat-assistant"))
          .POST(java.net.http.HttpRequest.BodyPublishers.ofString(
              "{\"threadId\":\"t\",\"runId\":\"r\",\"messages\":[{\"id\":\"m\",\"role\":\"user\",\"content\":\"hi\"}]}")).build(),
          java.net.http.HttpResponse.BodyHandlers.ofString()).body();
      assertThat(events).contains("hello from the agent").contains("RUN_FINISHED");
      assertThat(http.send(java.net.http.HttpRequest.newBuilder(server.uri()).build(), java.net.http.HttpResponse.BodyHandlers.ofString())
          .body()).contains("RCRT console");
    }
  }

  /** Removes the indentation common to all lines, as the docs show code flush left. */
  static String dedent(String block) {
    List<String> lines = block.lines().toList();
    int indent = lines.stream().filter(l -> !l.isBlank()).mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
    return String.join("\n", lines.stream().map(l -> l.isBlank() ? "" : l.substring(indent)).toList());
  }
}
