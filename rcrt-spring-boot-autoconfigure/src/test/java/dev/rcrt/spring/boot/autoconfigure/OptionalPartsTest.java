package dev.rcrt.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.rcrt.agent.AgentExecutor;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.Selector;
import dev.rcrt.langchain4j.LangChain4jLlmClient;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.postgres.PostgresBreadcrumbStore;
import dev.rcrt.postgres.TestPostgres;
import dev.rcrt.testing.ScriptedLlmClient;
import dev.rcrt.tools.ToolRunner;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.sql.Connection;
import java.sql.ResultSet;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The parts that switch on with the application's own beans: a DataSource, a health endpoint, OpenTelemetry, a LangChain4j model. */
class OptionalPartsTest {
  private final ApplicationContextRunner contexts = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(RcrtAutoConfiguration.class, RcrtHealthAutoConfiguration.class));

  @Test
  void aDataSourceMakesThePostgresStoreInTheConfiguredSchemaAndMemoryCanBeForced() throws Exception {
    DataSource dataSource = unclosable(TestPostgres.dataSource()); // the JVM's shared pool outlives these contexts
    String schema = TestPostgres.freshSchema();
    contexts.withBean(DataSource.class, () -> dataSource).withPropertyValues("rcrt.store.schema=" + schema).run(context -> {
      assertThat(context).hasSingleBean(PostgresBreadcrumbStore.class);
      BreadcrumbStore store = context.getBean(BreadcrumbStore.class);
      assertThat(store.search(Selector.schema("tool.definition.v1"), 100, 0)).isNotEmpty();
    });
    try (Connection c = dataSource.getConnection();
        ResultSet rows = c.createStatement().executeQuery("select count(*) from " + schema + ".breadcrumbs")) {
      rows.next();
      assertThat(rows.getInt(1)).as("records in the configured schema").isPositive();
    }
    contexts.withBean(DataSource.class, () -> dataSource).withPropertyValues("rcrt.store.type=memory")
        .run(context -> assertThat(context).hasSingleBean(InMemoryBreadcrumbStore.class).doesNotHaveBean(PostgresBreadcrumbStore.class));
  }

  @Test
  void postgresWithoutADataSourceStopsTheStartSayingWhatIsMissing() {
    contexts.withPropertyValues("rcrt.store.type=postgres").run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).rootCause()
          .hasMessageContaining("rcrt.store.type=postgres")
          .hasMessageContaining("DataSource")
          .hasMessageContaining("spring.datasource.url");
    });
  }

  @Test
  void theHealthIndicatorReportsTheStoreAndTheToolsThatCannotRun() {
    String wasmTool = """
        {"schema_name":"tool.v1","title":"wasm-tool","tags":["tool"],"context":{"name":"wasm-tool","description":"d",
         "input_schema":{"type":"object"},"implementation":{"type":"wasm","module":"x.wasm"}}}""";
    contexts.run(context -> {
      ToolRunner runner = context.getBean(ToolRunner.class);
      dev.rcrt.core.BreadcrumbFiles.upsert(runner.store(), dev.rcrt.core.BreadcrumbFiles.parse("wasm-tool",
          new java.io.ByteArrayInputStream(wasmTool.getBytes(java.nio.charset.StandardCharsets.UTF_8))).items().get(0));
      Health health = context.getBean("rcrtHealthIndicator", HealthIndicator.class).health();
      assertThat(health.getStatus()).isEqualTo(Status.UP);
      assertThat(health.getDetails()).containsEntry("store", "InMemoryBreadcrumbStore").containsEntry("abandonedToolCalls", 0);
      assertThat((Integer) health.getDetails().get("tools")).isGreaterThanOrEqualTo(6);
      @SuppressWarnings("unchecked")
      Map<String, List<String>> cannotRun = (Map<String, List<String>>) health.getDetails().get("toolsThatCannotRun");
      assertThat(cannotRun).doesNotContainKey("calculator").containsKey("wasm-tool");
      assertThat(cannotRun.get("wasm-tool")).anySatisfy(p -> assertThat(p).contains("wasm"));
    });
    contexts.withBean(BreadcrumbStore.class, OptionalPartsTest::failingStore).withPropertyValues("rcrt.breadcrumbs.seed-builtins=false").run(context -> {
      Health health = context.getBean("rcrtHealthIndicator", HealthIndicator.class).health();
      assertThat(health.getStatus()).isEqualTo(Status.DOWN);
      assertThat(String.valueOf(health.getDetails().get("store"))).contains("connection refused").doesNotContain("Exception");
    });
    contexts.withPropertyValues("management.health.rcrt.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean("rcrtHealthIndicator"));
  }

  @Test
  void anOpenTelemetryBeanGetsTurnModelAndToolSpans() {
    InMemorySpanExporter spans = InMemorySpanExporter.create();
    OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
        .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build()).build();
    contexts.withBean(OpenTelemetry.class, () -> otel)
        .withBean(LlmClient.class, () -> ScriptedLlmClient.replying(
            dev.rcrt.llm.ChatResponse.toolCalls(new dev.rcrt.llm.ToolCall("c1", "calculator", "{\"expression\":\"17*23\"}")),
            dev.rcrt.llm.ChatResponse.text("391")))
        .run(context -> {
          assertThat(context.getBean(AgentExecutor.class).ask("s1", "What is 17 * 23?").message()).isEqualTo("391");
          List<String> names = spans.getFinishedSpanItems().stream().map(SpanData::getName).toList();
          assertThat(names).contains("execute_tool calculator").anyMatch(n -> n.startsWith("invoke_agent"))
              .anyMatch(n -> n.startsWith("chat"));
        });
    otel.close();
  }

  @Test
  void aLangChain4jChatModelBeanIsTheModel() {
    ChatModel model = new ChatModel() {
      @Override
      public ChatResponse doChat(ChatRequest request) {
        return ChatResponse.builder().aiMessage(AiMessage.from("from LangChain4j")).build();
      }
    };
    contexts.withBean(ChatModel.class, () -> model).run(context -> {
      assertThat(context.getBean(LlmClient.class)).isInstanceOf(LangChain4jLlmClient.class);
      assertThat(context.getBean(AgentExecutor.class).ask("s1", "hello").message()).isEqualTo("from LangChain4j");
    });
  }

  @Test
  void mcpOnTheApplicationsServerNeedsATokenForHostsOtherMachinesReach() {
    var web = new org.springframework.boot.test.context.runner.WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(RcrtAutoConfiguration.class, RcrtMcpAutoConfiguration.class));
    web.withPropertyValues("rcrt.mcp.enabled=true", "rcrt.mcp.allowed-hosts=mcp.example.com").run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("reachable from other machines");
      assertThat(context.getStartupFailure()).hasMessageContaining("rcrt.mcp.bearer-token");
    });
    web.withPropertyValues("rcrt.mcp.enabled=true", "rcrt.mcp.allowed-hosts=mcp.example.com", "rcrt.mcp.bearer-token=t-123",
            "rcrt.mcp.path=/agents/mcp")
        .run(context -> {
          assertThat(context).hasNotFailed().hasSingleBean(dev.rcrt.mcp.McpToolServer.Mounted.class);
          var servlet = context.getBean(org.springframework.boot.web.servlet.ServletRegistrationBean.class);
          assertThat(servlet.getUrlMappings()).containsExactly("/agents/mcp");
          assertThat(context.getBean(dev.rcrt.mcp.McpToolServer.Mounted.class).filters()).hasSize(2); // bearer, then JSON-RPC
        });
    // loopback hosts, but Boot's server on every interface (server.address not set) or a public one: a token is required
    for (String[] props : new String[][] {{"rcrt.mcp.enabled=true"}, {"rcrt.mcp.enabled=true", "server.address=0.0.0.0"},
        {"rcrt.mcp.enabled=true", "server.address=192.0.2.10"}}) {
      web.withPropertyValues(props).run(context -> {
        assertThat(context).hasFailed();
        assertThat(context.getStartupFailure()).hasMessageContaining("reachable from other machines")
            .hasMessageContaining("rcrt.mcp.bearer-token").hasMessageContaining("server.address=127.0.0.1");
      });
    }
    web.withPropertyValues("rcrt.mcp.enabled=true", "server.address=127.0.0.1")
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(dev.rcrt.mcp.McpToolServer.Mounted.class));
    web.run(context -> assertThat(context).doesNotHaveBean(dev.rcrt.mcp.McpToolServer.Mounted.class)); // off by default
    contexts.withConfiguration(AutoConfigurations.of(RcrtMcpAutoConfiguration.class)).withPropertyValues("rcrt.mcp.enabled=true")
        .run(context -> assertThat(context).doesNotHaveBean(dev.rcrt.mcp.McpToolServer.Mounted.class)); // not a web application
  }

  @Test
  void a2aServesTheStoresAgentsOnAListenerOfItsOwnWithTheApplicationsModelAndRunner() {
    LlmClient model = ScriptedLlmClient.answering(r -> {
      dev.rcrt.llm.ChatMessage last = r.messages().get(r.messages().size() - 1);
      return "tool".equals(last.role()) ? dev.rcrt.llm.ChatResponse.text("The answer is " + last.content())
          : dev.rcrt.llm.ChatResponse.toolCalls(new dev.rcrt.llm.ToolCall("c1", "calculator", "{\"expression\":\"17 * 23\"}"));
    });
    ApplicationContextRunner a2a = contexts.withConfiguration(AutoConfigurations.of(RcrtA2aAutoConfiguration.class))
        .withBean(LlmClient.class, () -> model).withPropertyValues("rcrt.agent.max-rounds=3");
    a2a.withPropertyValues("rcrt.a2a.enabled=true", "rcrt.a2a.port=0").run(context -> {
      dev.rcrt.a2a.A2aServer server = context.getBean(dev.rcrt.a2a.A2aServer.class);
      dev.rcrt.a2a.A2aClient client = dev.rcrt.a2a.A2aClient.of(Map.of(), java.time.Duration.ofSeconds(30));
      io.a2a.spec.AgentCard card = client.card(server.cardUri("default-chat-assistant"));
      assertThat(card.skills()).extracting(io.a2a.spec.AgentSkill::id).contains("tool:calculator");
      io.a2a.spec.Task task = (io.a2a.spec.Task) client.send(java.net.URI.create(card.url()),
          dev.rcrt.a2a.A2aClient.message("What is 17 * 23?", null, null, Map.of()), true);
      assertThat(task.getStatus().state()).isEqualTo(io.a2a.spec.TaskState.COMPLETED);
      assertThat(((io.a2a.spec.TextPart) task.getArtifacts().get(0).parts().get(0)).getText()).contains("391");
    });
    a2a.withPropertyValues("rcrt.a2a.enabled=true", "rcrt.a2a.port=0", "rcrt.a2a.host=0.0.0.0").run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).hasMessageContaining("rcrt.a2a.bearer-token");
    });
    a2a.run(context -> assertThat(context).doesNotHaveBean(dev.rcrt.a2a.A2aServer.class)); // off by default
  }

  @Test
  void aguiServesTheStoresAgentsAndTheConsoleOnAListenerOfItsOwn() {
    LlmClient model = ScriptedLlmClient.answering(r -> {
      dev.rcrt.llm.ChatMessage last = r.messages().get(r.messages().size() - 1);
      return "tool".equals(last.role()) ? dev.rcrt.llm.ChatResponse.text("The answer is " + last.content())
          : dev.rcrt.llm.ChatResponse.toolCalls(new dev.rcrt.llm.ToolCall("c1", "calculator", "{\"expression\":\"17 * 23\"}"));
    });
    ApplicationContextRunner agui = contexts.withConfiguration(AutoConfigurations.of(RcrtAguiAutoConfiguration.class))
        .withBean(LlmClient.class, () -> model).withPropertyValues("rcrt.agent.max-rounds=3");
    agui.withPropertyValues("rcrt.agui.enabled=true", "rcrt.agui.port=0", "rcrt.agui.console=true", "rcrt.agui.approvers=alice")
        .run(context -> {
          dev.rcrt.agui.AgUiServer server = context.getBean(dev.rcrt.agui.AgUiServer.class);
          assertThat(context.getBean(ToolRunner.class).approvers())
              .contains(dev.rcrt.agui.AgUiServer.CALLER, dev.rcrt.core.Principal.ofWriter("user:alice"));
          java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
          String input = "{\"threadId\":\"s1\",\"runId\":\"r1\",\"messages\":[{\"id\":\"m1\",\"role\":\"user\",\"content\":\"What is 17 * 23?\"}]}";
          String events = http.send(java.net.http.HttpRequest.newBuilder(server.endpoint("default-chat-assistant"))
              .POST(java.net.http.HttpRequest.BodyPublishers.ofString(input)).build(), java.net.http.HttpResponse.BodyHandlers.ofString()).body();
          assertThat(events).contains("\"TOOL_CALL_RESULT\"").contains("391").contains("\"RUN_FINISHED\"");
          java.net.http.HttpResponse<String> page = http.send(java.net.http.HttpRequest.newBuilder(server.uri().resolve("/")).build(),
              java.net.http.HttpResponse.BodyHandlers.ofString());
          assertThat(page.body()).contains("RCRT console");
        });
    agui.withPropertyValues("rcrt.agui.enabled=true", "rcrt.agui.port=0", "rcrt.agui.host=0.0.0.0").run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).hasMessageContaining("rcrt.agui.bearer-token");
    });
    agui.run(context -> assertThat(context).doesNotHaveBean(dev.rcrt.agui.AgUiServer.class)); // off by default
  }

  private static DataSource unclosable(DataSource pool) {
    return (DataSource) java.lang.reflect.Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
        (proxy, method, args) -> {
          try {
            return method.invoke(pool, args);
          } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }

  /** A store whose database refuses every search. */
  private static BreadcrumbStore failingStore() {
    BreadcrumbStore delegate = InMemoryBreadcrumbStore.builder().build();
    return (BreadcrumbStore) java.lang.reflect.Proxy.newProxyInstance(BreadcrumbStore.class.getClassLoader(),
        new Class<?>[] {BreadcrumbStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("search")) {
            throw new IllegalStateException("connection refused by db.internal:5432");
          }
          try {
            return method.invoke(delegate, args);
          } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }
}
