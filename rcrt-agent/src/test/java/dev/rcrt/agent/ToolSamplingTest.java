package dev.rcrt.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.llm.ChatMessage;
import dev.rcrt.llm.ChatRequest;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.ToolCall;
import dev.rcrt.testing.ScriptedLlmClient;
import dev.rcrt.tools.ToolExchange;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A tool an agent's run calls asks the run's own model (sampling), where its record allows it. */
class ToolSamplingTest {
  private InMemoryBreadcrumbStore store;
  private ToolRunner runner;

  @BeforeEach
  void setUp() {
    store = InMemoryBreadcrumbStore.builder().eventExecutor(Runnable::run).build();
    runner = ToolRunner.builder(store)
        .handler("summarize", (in, ctx) -> RcrtJson.object().put("summary",
            ctx.sample(new ToolExchange.Sampling(List.of(new ToolExchange.SamplingMessage("user", in.path("text").asText())), "Summarize in one word", 10_000))
                .text()))
        .build();
  }

  @AfterEach
  void tearDown() {
    runner.close();
  }

  private void tool(String name, String permissions) {
    store.create(BreadcrumbCreate.builder("tool.definition.v1", name).tags("tool")
        .context(RcrtJson.parse("{\"name\":\"" + name + "\",\"description\":\"" + name + "\",\"input_schema\":{\"type\":\"object\"}" + permissions + "}"))
        .build());
  }

  /** The model: a sampling request (its system prompt says so) gets one word; a turn calls {@code tool} once, then answers. */
  private static ScriptedLlmClient model(String tool) {
    return ScriptedLlmClient.answering(r -> {
      ChatMessage first = r.messages().get(0);
      if ("system".equals(first.role()) && "Summarize in one word".equals(first.content())) {
        return ChatResponse.text("Brief");
      }
      return r.messages().stream().anyMatch(m -> "tool".equals(m.role())) ? ChatResponse.text("done")
          : ChatResponse.toolCalls(new ToolCall("c1", tool, "{\"text\":\"A long story about nothing much.\"}"));
    });
  }

  private ToolResponse turn(ScriptedLlmClient llm) {
    AgentDefinition agent = AgentDefinition.fromBreadcrumb(store.create(AgentDefinition.defaultChatAgent()));
    AgentExecutor executor = AgentExecutor.builder(llm, runner).agent(agent).build();
    executor.answer(store.create(new UserMessage("s1", "Summarize it").toBreadcrumb()));
    List<Breadcrumb> responses = store.search(Selector.schema(ToolResponse.SCHEMA), 10, 0);
    assertThat(responses).hasSize(1);
    return ToolResponse.fromBreadcrumb(responses.get(0));
  }

  @Test
  void aToolWhoseRecordAllowsSamplingAsksTheRunsModelForAtMostItsTokenCap() {
    tool("summarize", ",\"permissions\":{\"sampling\":true}");
    ScriptedLlmClient llm = model("summarize");
    ToolResponse r = turn(llm);
    assertThat(r.success()).as(r.error()).isTrue();
    assertThat(r.output().path("summary").asText()).isEqualTo("Brief");
    ChatRequest sampling = llm.requests().stream().filter(q -> "system".equals(q.messages().get(0).role())
        && "Summarize in one word".equals(q.messages().get(0).content())).findFirst().orElseThrow();
    assertThat(sampling.messages()).extracting(ChatMessage::content).containsExactly("Summarize in one word", "A long story about nothing much.");
    assertThat(sampling.options().maxTokens()).isEqualTo(4_096);
    assertThat(sampling.tools()).isEmpty();
  }

  @Test
  void aToolWhoseRecordDoesNotAllowSamplingIsRefusedWithWhatToAdd() {
    tool("summarize", "");
    ToolResponse r = turn(model("summarize"));
    assertThat(r.errorCode()).isEqualTo("tool_capability_denied");
    assertThat(r.error()).contains("asked agent 'default-chat-assistant''s model (sampling), which its record does not allow")
        .contains("\"permissions\": {\"sampling\": true}");
  }
}
