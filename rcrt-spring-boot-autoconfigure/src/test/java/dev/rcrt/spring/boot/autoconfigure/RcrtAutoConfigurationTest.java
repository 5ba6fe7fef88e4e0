package dev.rcrt.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.agent.AgentExecutor;
import dev.rcrt.agent.AgentResponse;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.llm.OpenAiCompatibleLlmClient;
import dev.rcrt.llm.ToolCall;
import dev.rcrt.testing.ScriptedLlmClient;
import dev.rcrt.tools.ApprovalHandler;
import dev.rcrt.tools.Tool;
import dev.rcrt.tools.ToolParam;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import dev.rcrt.tools.ToolTrustPolicy;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The auto-configuration in real application contexts: what it defines, what it backs off from, what its properties do. */
class RcrtAutoConfigurationTest {
  private final ApplicationContextRunner contexts = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(RcrtAutoConfiguration.class));

  public record Order(String id, int quantity) {}

  /** A bean with two tools, as an application writes one. */
  public static class Orders {
    final AtomicInteger calls = new AtomicInteger();

    @Tool(description = "Count the items of an order")
    public int countItems(@ToolParam(name = "order", description = "the order") Order order) {
      calls.incrementAndGet();
      return order.quantity();
    }

    @Tool(description = "List the open orders")
    public List<Order> openOrders() {
      return List.of(new Order("o-1", 2), new Order("o-2", 5));
    }
  }

  /** A tool that needs approval. */
  public static class Payments {
    @Tool(description = "Pay an invoice", requiresApproval = true)
    public String pay(@ToolParam(name = "invoice") String invoice) {
      return "paid " + invoice;
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class ToolsAndModel {
    @Bean
    Orders orders() {
      return new Orders();
    }

    @Bean
    LlmClient model() {
      return ScriptedLlmClient.replying(
          ChatResponse.toolCalls(new ToolCall("c1", "countItems", "{\"order\":{\"id\":\"o-1\",\"quantity\":3}}")),
          ChatResponse.text("Order o-1 has 3 items."));
    }
  }

  @Test
  void withNothingSetTheApplicationGetsAnInMemoryStoreWithTheBuiltinsAndARunnerButNoModelOrAgent() {
    contexts.run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(context).hasSingleBean(InMemoryBreadcrumbStore.class).hasSingleBean(ToolRunner.class);
      assertThat(context).doesNotHaveBean(LlmClient.class).doesNotHaveBean(AgentExecutor.class);
      ToolRunner runner = context.getBean(ToolRunner.class);
      assertThat(runner.discovery().find("calculator")).isPresent();
      ToolResponse r = runner.call(ToolRequest.of("calculator", RcrtJson.parse("{\"expression\":\"17*23\"}"), null));
      assertThat(RcrtJson.write(r.output())).contains("391");
    });
  }

  @Test
  void anAgentAnswersThroughAToolBeanMethodAndTheTrailIsInTheStore() {
    contexts.withUserConfiguration(ToolsAndModel.class).run(context -> {
      AgentExecutor executor = context.getBean(AgentExecutor.class);
      AgentResponse answer = executor.ask("s1", "How many items in o-1?");
      assertThat(answer.message()).isEqualTo("Order o-1 has 3 items.");
      assertThat(context.getBean(Orders.class).calls).hasValue(1);

      BreadcrumbStore store = context.getBean(BreadcrumbStore.class);
      JsonNode count = store.search(Selector.schema("tool.v1"), 100, 0).stream()
          .filter(b -> b.title().equals("countItems")).findFirst().orElseThrow().context();
      assertThat(count.at("/input_schema/properties/order/description").asText()).isEqualTo("the order");
      assertThat(store.search(Selector.schema(ToolResponse.SCHEMA), 10, 0)).hasSize(1);
      assertThat(store.search(Selector.schema(ToolRequest.SCHEMA), 10, 0)).hasSize(1);
    });
  }

  @Test
  void aToolBeanBehindAClassProxyIsFoundByItsOwnClassAndCalledThroughTheProxy() {
    AtomicInteger intercepted = new AtomicInteger();
    contexts.withBean("orders", Orders.class, () -> {
      ProxyFactory proxy = new ProxyFactory(new Orders());
      proxy.setProxyTargetClass(true);
      proxy.addAdvice((org.aopalliance.intercept.MethodInterceptor) invocation -> {
        intercepted.incrementAndGet();
        return invocation.proceed();
      });
      return (Orders) proxy.getProxy();
    }).run(context -> {
      ToolRunner runner = context.getBean(ToolRunner.class);
      ToolResponse r = runner.call(ToolRequest.of("countItems", RcrtJson.parse("{\"order\":{\"id\":\"o\",\"quantity\":7}}"), null));
      assertThat(r.errorCode()).isNull();
      assertThat(RcrtJson.write(r.output())).isEqualTo("7");
      assertThat(intercepted).hasPositiveValue();
    });
  }

  @Test
  void aWrongArgumentTypeIsToolInputInvalidWithAPointer() {
    contexts.withUserConfiguration(ToolsAndModel.class).run(context -> {
      ToolResponse r = context.getBean(ToolRunner.class)
          .call(ToolRequest.of("countItems", RcrtJson.parse("{\"order\":{\"id\":\"o\",\"quantity\":\"three\"}}"), null));
      assertThat(r.errorCode()).isEqualTo("tool_input_invalid");
      assertThat(r.error()).contains("/order/quantity");
    });
  }

  @Test
  void theModelPropertiesMakeAnOpenAiCompatibleClientAndTheAgentIdPicksTheAgent() {
    contexts.withPropertyValues(
            "rcrt.model.base-url=http://127.0.0.1:9/v1",
            "rcrt.model.api-key=sk-test-123",
            "rcrt.model.model=gpt-test",
            "rcrt.breadcrumbs.locations=classpath:breadcrumbs/agent.json",
            "rcrt.agent.id=orders-agent")
        .run(context -> {
          assertThat(context).hasNotFailed();
          OpenAiCompatibleLlmClient client = context.getBean(OpenAiCompatibleLlmClient.class);
          assertThat(client.endpoint().toString()).startsWith("http://127.0.0.1:9/v1");
          assertThat(client.defaultModel()).contains("gpt-test");
          assertThat(client.toString()).doesNotContain("sk-test-123");
          assertThat(context.getBean(AgentExecutor.class).agent().agentId()).isEqualTo("orders-agent");
        });
  }

  @Test
  void anAgentIdTheStoreDoesNotDefineStopsTheStartNamingTheAgentsThereAre() {
    contexts.withUserConfiguration(ToolsAndModel.class).withPropertyValues("rcrt.agent.id=nobody").run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).rootCause()
          .hasMessageContaining("no agent definition with agent_id 'nobody'")
          .hasMessageContaining("default-chat-assistant");
    });
  }

  @Test
  void breadcrumbLocationsLoadPatternsAndAMissingOneStopsTheStartUnlessToldOtherwise() {
    contexts.withPropertyValues("rcrt.breadcrumbs.locations=classpath:breadcrumbs/*.json").run(context -> {
      ToolRunner runner = context.getBean(ToolRunner.class);
      assertThat(runner.discovery().find("internal-lookup")).isPresent();
      assertThat(context.getBean(BreadcrumbStore.class).search(Selector.schema("agent.def.v1"), 10, 0))
          .extracting(b -> b.contextText("agent_id")).contains("orders-agent");
    });
    contexts.withPropertyValues("rcrt.breadcrumbs.locations=classpath:nowhere/*.json").run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).rootCause()
          .hasMessageContaining("rcrt.breadcrumbs.locations")
          .hasMessageContaining("classpath:nowhere/*.json")
          .hasMessageContaining("rcrt.breadcrumbs.fail-on-error=false");
    });
    contexts.withPropertyValues("rcrt.breadcrumbs.locations=classpath:nowhere/*.json", "rcrt.breadcrumbs.fail-on-error=false")
        .run(context -> assertThat(context).hasNotFailed());
  }

  @Test
  void aMalformedBreadcrumbFileIsNamedWithItsError() {
    contexts.withPropertyValues("rcrt.breadcrumbs.locations=classpath:malformed/broken.json").run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("broken.json");
    });
  }

  @Test
  void refusalsNameTheTrustPropertyAndThePropertyAllowsIt() {
    contexts.withPropertyValues("rcrt.breadcrumbs.locations=classpath:breadcrumbs/lookup.json").run(context -> {
      ToolResponse r = context.getBean(ToolRunner.class).call(ToolRequest.of("internal-lookup", RcrtJson.parse("{\"id\":\"1\"}"), null));
      assertThat(r.errorCode()).isEqualTo("tool_capability_denied");
      assertThat(r.error()).contains("rcrt.trust.allow-network=127.0.0.1/32");
    });
    contexts.withPropertyValues("rcrt.breadcrumbs.locations=classpath:breadcrumbs/lookup.json", "rcrt.trust.allow-network=127.0.0.0/8")
        .run(context -> {
          ToolResponse r = context.getBean(ToolRunner.class).call(ToolRequest.of("internal-lookup", RcrtJson.parse("{\"id\":\"1\"}"), null));
          assertThat(r.errorCode()).isEqualTo("tool_unreachable"); // allowed: nothing listens on port 9
        });
  }

  @Test
  void everyBeanBacksOffWhenTheApplicationDefinesItsOwn() {
    InMemoryBreadcrumbStore own = InMemoryBreadcrumbStore.builder().build();
    ToolTrustPolicy policy = ToolTrustPolicy.builder().allowNetwork("10.0.0.0/8").build();
    contexts.withBean(BreadcrumbStore.class, () -> own).withBean(ToolTrustPolicy.class, () -> policy).run(context -> {
      assertThat(context).hasSingleBean(BreadcrumbStore.class);
      ToolRunner runner = context.getBean(ToolRunner.class);
      assertThat(runner.store()).isSameAs(own);
      assertThat(runner.policy()).isSameAs(policy);
      assertThat(own.search(Selector.schema("tool.definition.v1"), 100, 0)).isNotEmpty(); // builtins seeded into the application's store
    });
    contexts.withBean("myRunner", ToolRunner.class,
            () -> ToolRunner.builder(InMemoryBreadcrumbStore.builder().build()).build())
        .run(context -> assertThat(context).getBeanNames(ToolRunner.class).containsExactly("myRunner"));
  }

  @Test
  void theApplicationsApprovalHandlerDecidesToolsThatNeedApproval() {
    AtomicInteger asked = new AtomicInteger();
    contexts.withBean("payments", Payments.class, Payments::new)
        .withBean(ApprovalHandler.class, () -> (request, tool) -> asked.incrementAndGet() > 1)
        .run(context -> {
          ToolRunner runner = context.getBean(ToolRunner.class);
          assertThat(runner.call(ToolRequest.of("pay", RcrtJson.parse("{\"invoice\":\"i-1\"}"), null)).errorCode()).isEqualTo("tool_denied");
          assertThat(RcrtJson.write(runner.call(ToolRequest.of("pay", RcrtJson.parse("{\"invoice\":\"i-2\"}"), null)).output())).contains("paid i-2");
          assertThat(asked).hasValue(2);
        });
  }

  @Test
  void customizersHaveTheLastWord() {
    contexts.withBean(ToolRunnerCustomizer.class, () -> b -> b.handler("echo", (input, ctx) -> input))
        .withBean(LlmClient.class, () -> ScriptedLlmClient.replying(ChatResponse.text("hi")))
        .withBean(AgentExecutorCustomizer.class, () -> b -> b.maxRounds(1))
        .run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(context.getBean(AgentExecutor.class).ask("s", "hello").message()).isEqualTo("hi");
        });
  }

  @Test
  void theConfigurationMetadataListsEveryPropertyForIdes() throws Exception {
    try (var in = RcrtProperties.class.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      assertThat(in).isNotNull();
      JsonNode metadata = RcrtJson.parse(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
      List<String> names = new java.util.ArrayList<>();
      metadata.path("properties").forEach(p -> names.add(p.path("name").asText()));
      assertThat(names).contains("rcrt.model.base-url", "rcrt.model.api-key", "rcrt.store.type", "rcrt.store.schema",
          "rcrt.breadcrumbs.locations", "rcrt.trust.allow-network", "rcrt.trust.allow-image", "rcrt.trust.allow-command",
          "rcrt.trust.allow-module-dir", "rcrt.trust.trusted-keys", "rcrt.agent.id", "rcrt.agent.serve");
      metadata.path("properties").forEach(p -> assertThat(p.path("description").asText()).as(p.path("name").asText()).isNotBlank());
    }
  }
}
