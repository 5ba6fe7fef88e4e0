package com.example.shop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.ToolCall;
import dev.rcrt.testing.ScriptedLlmClient;
import org.junit.jupiter.api.Test;

/** The getting-started agent against a scripted model: the answer goes through the annotated tool. */
class FirstAgentTest {
  @Test
  void theAgentPricesALineThroughTheAnnotatedTool() {
    ScriptedLlmClient model = ScriptedLlmClient.replying(
        ChatResponse.toolCalls(new ToolCall("c1", "price", "{\"line\":{\"sku\":\"BOOK-7\",\"quantity\":3}}")),
        ChatResponse.text("Three copies cost 37.50 euros."));
    assertThat(FirstAgent.ask(InMemoryBreadcrumbStore.builder().build(), model, "What do 3 copies of BOOK-7 cost?"))
        .isEqualTo("Three copies cost 37.50 euros.");
    var second = model.requests().get(1).messages();
    assertThat(RcrtJson.parse(second.get(second.size() - 1).content()).asDouble()).isEqualTo(37.5);
    assertThat(RcrtJson.write(model.requests().get(0).tools())).contains("openOrders", "customer id");
    assertThat(model.requests().get(0).tools().findValuesAsText("name")).as("the agent is offered the tools it is given")
        .containsExactlyInAnyOrder("price", "openOrders");
  }

  @Test
  void withoutAKeyOrEndpointTheOfflineDemoModelAnswersNamingTheAgentsTools() {
    var model = FirstAgent.model(java.util.Map.of());
    assertThat(model).isInstanceOf(dev.rcrt.llm.DemoLlmClient.class);
    assertThat(FirstAgent.ask(InMemoryBreadcrumbStore.builder().build(), model, "What do 3 copies of BOOK-7 cost?"))
        .contains("offline demo model").contains("openOrders, price").doesNotContain("calculator");
  }
}
