package dev.rcrt.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.ValidationException;
import dev.rcrt.llm.ChatOptions;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.testing.ScriptedLlmClient;
import java.util.List;
import org.junit.jupiter.api.Test;

class AgentDefinitionTest {
  private final InMemoryBreadcrumbStore store = new InMemoryBreadcrumbStore();

  @Test
  void aBuiltAgentStoredAndReadBackIsTheSameAgent() {
    AgentDefinition built = AgentDefinition.builder("support-bot")
        .model("gpt-4o")
        .systemPrompt("Answer support questions.")
        .options(ChatOptions.builder().temperature(0.1).maxTokens(400).seed(7L).stop(List.of("###")).build())
        .subscribe(Selector.anyTags("support:ticket", "support:chat"))
        .settings(RcrtJson.parse("{\"max_tool_calls\":3,\"model\":\"ignored\"}"))
        .build();

    AgentDefinition read = AgentDefinition.fromBreadcrumb(store.create(built.toBreadcrumb()));

    assertThat(read).isEqualTo(built);
    assertThat(read.model()).isEqualTo("gpt-4o");
    assertThat(read.options().maxTokens()).isEqualTo(400);
    assertThat(read.subscriptions()).containsExactly(Selector.anyTags("support:ticket", "support:chat"));
    assertThat(read.context().get("max_tool_calls").asInt()).isEqualTo(3);
  }

  @Test
  void everyRequestOfAnAgentCarriesItsModelSettings() {
    AgentDefinition agent = AgentDefinition.fromBreadcrumb(store.create(BreadcrumbCreate.builder("agent.def.v1", "terse")
        .context(RcrtJson.parse("{\"model\":\"m\",\"system_prompt\":\"p\",\"max_tokens\":50,\"stop\":\"END\",\"response_format\":{\"type\":\"json_object\"}}"))
        .build()));
    ScriptedLlmClient llm = ScriptedLlmClient.replying(ChatResponse.text("{}"));
    try (var runner = dev.rcrt.tools.ToolRunner.builder(store).build();
        var executor = AgentExecutor.builder(llm, runner).agent(agent).build()) {
      executor.ask("s", "hi");
    }
    ChatOptions sent = llm.requests().get(0).options();
    assertThat(sent.maxTokens()).isEqualTo(50);
    assertThat(sent.stop()).containsExactly("END");
    assertThat(sent.responseFormat().get("type").asText()).isEqualTo("json_object");
  }

  @Test
  void aModelSettingOfTheWrongTypeNamesTheRecordAndTheField() {
    var bad = store.create(BreadcrumbCreate.builder("agent.def.v1", "bad")
        .context(RcrtJson.parse("{\"model\":\"m\",\"system_prompt\":\"p\",\"max_tokens\":\"lots\"}")).build());
    assertThatThrownBy(() -> AgentDefinition.fromBreadcrumb(bad))
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("agent definition '" + bad.id() + "' context: max_tokens must be a whole number");
  }
}
