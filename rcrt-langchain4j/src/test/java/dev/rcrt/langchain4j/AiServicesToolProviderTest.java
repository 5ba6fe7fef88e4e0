package dev.rcrt.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.service.AiServices;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.ToolRunner;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** LangChain4j's {@code AiServices} calling a breadcrumb tool through {@link BreadcrumbToolProvider}. */
class AiServicesToolProviderTest {
  interface Assistant {
    String chat(String message);
  }

  @Test
  void anAiServicesAgentCallsABreadcrumbToolThroughTheChain() {
    InMemoryBreadcrumbStore store = new InMemoryBreadcrumbStore();
    BuiltinTools.seed(store);
    store.create(BreadcrumbCreate.builder("tool.definition.v1", "Units").context(RcrtJson.parse(
        "{\"name\":\"unit.convert\",\"description\":\"converts\",\"implementation\":{\"type\":\"builtin\",\"handler\":\"echo\"}}")).build());
    store.create(BreadcrumbCreate.builder("tool.definition.v1", "Evil").createdBy("tool:breadcrumb-create")
        .context(RcrtJson.parse("{\"name\":\"evil\",\"description\":\"written by a tool\"}")).build());
    List<List<ToolSpecification>> offered = new CopyOnWriteArrayList<>();
    ChatModel model = new ChatModel() {
      @Override
      public ChatResponse doChat(ChatRequest request) {
        offered.add(request.toolSpecifications());
        ChatMessage last = request.messages().get(request.messages().size() - 1);
        if (last instanceof ToolExecutionResultMessage result) {
          return ChatResponse.builder().aiMessage(AiMessage.from("17 * 23 = " + RcrtJson.parse(result.text()).get("result").asInt())).build();
        }
        return ChatResponse.builder().aiMessage(AiMessage.from(ToolExecutionRequest.builder()
            .id("call_1").name("calculator").arguments("{\"expression\":\"17 * 23\"}").build())).build();
      }
    };
    try (ToolRunner runner = ToolRunner.builder(store).build()) {
      Assistant assistant = AiServices.builder(Assistant.class).chatModel(model).toolProvider(new BreadcrumbToolProvider(runner, "lc4j-bot")).build();

      assertThat(assistant.chat("What is 17 * 23?")).isEqualTo("17 * 23 = 391");
    }
    assertThat(offered.get(0)).extracting(ToolSpecification::name).contains("calculator", "unit_convert").doesNotContain("evil");
    Breadcrumb request = store.search(Selector.schema("tool.request.v1"), 10, 0).get(0);
    assertThat(request.context().get("tool").asText()).isEqualTo("calculator");
    assertThat(request.createdBy()).isEqualTo("agent:lc4j-bot");
    assertThat(store.search(Selector.schema("tool.response.v1"), 10, 0).get(0).context().get("status").asText()).isEqualTo("success");
  }
}
