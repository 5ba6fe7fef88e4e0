package dev.rcrt.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.AgentExecutor;
import dev.rcrt.agent.UserMessage;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.ToolCall;
import dev.rcrt.testing.ScriptedLlmClient;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import org.junit.jupiter.api.Test;

/**
 * A project that depends on {@code rcrt-agent} and {@code rcrt-tools-js}: the runtime is found on
 * the classpath with nothing to configure, and JavaScript and TypeScript tools run through an
 * agent; container tools still name {@code rcrt-tools-docker}.
 */
class AgentWithJsConsumerTest {
  private final InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().eventExecutor(Runnable::run).build();

  @Test
  void javaScriptAndTypeScriptToolsRunThroughAnAgentOnceTheArtifactIsAdded() {
    store.create(BreadcrumbCreate.builder("tool.code.v1", "shout").context(RcrtJson.parse("""
        {"name":"shout","description":"Upper-case a text","code":{"language":"javascript",
         "source":"export function execute(input) { return {text: input.text.toUpperCase()}; }"}}""")).build());
    store.create(BreadcrumbCreate.builder("tool.code.v1", "count").context(RcrtJson.parse("""
        {"name":"count","description":"Count characters","code":{"language":"typescript",
         "source":"export function execute(input: {text: string}): {n: number} { return {n: input.text.length}; }"}}""")).build());
    store.create(BreadcrumbCreate.builder("tool.v1", "boxed").context(RcrtJson.parse(
        "{\"name\":\"boxed\",\"implementation\":{\"type\":\"container\",\"image\":\"acme/boxed:1\"}}")).build());
    ScriptedLlmClient llm = ScriptedLlmClient.replying(
        ChatResponse.toolCalls(new ToolCall("c1", "shout", "{\"text\":\"right time\"}"), new ToolCall("c2", "count", "{\"text\":\"right time\"}")),
        ChatResponse.text("done"));
    AgentDefinition agent = AgentDefinition.fromBreadcrumb(store.create(AgentDefinition.defaultChatAgent()));
    try (ToolRunner runner = ToolRunner.builder(store).build();
        AgentExecutor executor = AgentExecutor.builder(llm, runner).agent(agent).build()) {
      Breadcrumb question = store.create(new UserMessage("s1", "Shout and count 'right time'").toBreadcrumb());
      assertThat(executor.answer(question).contextText("message")).isEqualTo("done");
      String toolResults = RcrtJson.write(llm.requests().get(1).messages());
      assertThat(toolResults).contains("RIGHT TIME").contains("{\\\"n\\\":10}");

      ToolResponse boxed = runner.call(ToolRequest.of("boxed", RcrtJson.object(), "consumer"));
      assertThat(boxed.error()).contains("add the dependency dev.rcrt:rcrt-tools-docker");
    }
  }
}
