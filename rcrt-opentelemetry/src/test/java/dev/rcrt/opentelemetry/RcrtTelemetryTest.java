package dev.rcrt.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.AgentExecutor;
import dev.rcrt.agent.AgentResponse;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.llm.ToolCall;
import dev.rcrt.testing.ScriptedLlmClient;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.SecretResolver;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolRunner;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The GenAI spans and metrics of one agent turn, read with the OpenTelemetry SDK's in-memory exporters. */
class RcrtTelemetryTest {
  private static final String CANARY = "canary-secret-90913";

  @Test
  void aTurnIsAnInvokeAgentSpanWithChatAndExecuteToolSpansInsideAndNoSecretAnywhere() {
    InMemorySpanExporter spans = InMemorySpanExporter.create();
    InMemoryMetricReader metrics = InMemoryMetricReader.create();
    OpenTelemetrySdk otel = sdk(spans, metrics);
    runTurn(RcrtTelemetry.create(otel));

    List<SpanData> all = spans.getFinishedSpanItems();
    SpanData turn = one(all, "invoke_agent calc-bot");
    assertThat(turn.getParentSpanContext().isValid()).isFalse();
    assertThat(turn.getAttributes().get(AttributeKey.stringKey("gen_ai.operation.name"))).isEqualTo("invoke_agent");
    assertThat(turn.getAttributes().get(AttributeKey.stringKey("gen_ai.conversation.id"))).isEqualTo("s1");
    assertThat(turn.getAttributes().get(AttributeKey.longKey("gen_ai.usage.input_tokens"))).isEqualTo(80);

    List<SpanData> chats = all.stream().filter(s -> s.getName().equals("chat model-x")).toList();
    assertThat(chats).hasSize(2).allSatisfy(s -> {
      assertThat(s.getParentSpanId()).isEqualTo(turn.getSpanId());
      assertThat(s.getAttributes().get(AttributeKey.stringKey("gen_ai.provider.name"))).isEqualTo("openai");
      assertThat(s.getAttributes().get(AttributeKey.stringKey("gen_ai.request.model"))).isEqualTo("model-x");
      assertThat(s.getAttributes().get(AttributeKey.stringKey("gen_ai.response.model"))).isEqualTo("model-x");
    });

    SpanData calculator = one(all, "execute_tool calculator");
    assertThat(calculator.getParentSpanId()).as("carried to the tool thread").isEqualTo(turn.getSpanId());
    assertThat(calculator.getAttributes().get(AttributeKey.stringKey("gen_ai.tool.call.id"))).isEqualTo("call_1");
    assertThat(calculator.getAttributes().get(AttributeKey.stringKey("rcrt.tool.implementation"))).isEqualTo("builtin");
    SpanData leaky = one(all, "execute_tool leaky");
    assertThat(leaky.getAttributes().get(AttributeKey.stringKey("error.type"))).isEqualTo("tool_failed");

    Collection<MetricData> measured = metrics.collectAllMetrics();
    assertThat(measured).extracting(MetricData::getName)
        .contains("gen_ai.client.operation.duration", "gen_ai.client.token.usage", "rcrt.tool.call.duration");

    assertThat(all.toString() + measured).doesNotContain(CANARY).doesNotContain("17 * 23");
    otel.close();
  }

  private static OpenTelemetrySdk sdk(InMemorySpanExporter spans, InMemoryMetricReader metrics) {
    return OpenTelemetrySdk.builder()
        .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
        .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(metrics).build())
        .build();
  }

  /** One turn: the model calls calculator and a tool that fails with its secret in the message, then answers. */
  private static void runTurn(RcrtTelemetry telemetry) {
    InMemoryBreadcrumbStore store = new InMemoryBreadcrumbStore();
    BuiltinTools.seed(store);
    store.create(BreadcrumbCreate.builder("tool.definition.v1", "Leaky").context(RcrtJson.parse("""
        {"name":"leaky","description":"fails with its secret in the message","required_secrets":["CANARY"],
         "implementation":{"type":"builtin","handler":"leaky"}}""")).build());
    ScriptedLlmClient scripted = ScriptedLlmClient.replying(
        new ChatResponse(dev.rcrt.llm.ChatMessage.assistant(null, List.of(
            new ToolCall("call_1", "calculator", "{\"expression\":\"17 * 23\"}"), new ToolCall("call_2", "leaky", "{}"))),
            "tool_calls", new ChatResponse.Usage(30, 10, 40), "model-x"),
        new ChatResponse(dev.rcrt.llm.ChatMessage.assistant("17 * 23 = 391", List.of()), "stop", new ChatResponse.Usage(50, 8, 58), "model-x"));
    LlmClient llm = telemetry.instrument(scripted, "openai");
    try (ToolRunner runner = ToolRunner.builder(store)
            .handler("leaky", (input, context) -> {
              throw new ToolException("tool_failed", "could not use " + context.secrets().get("CANARY"));
            })
            .secretResolver(SecretResolver.environment(Map.of("CANARY", CANARY)))
            .addInterceptor(telemetry.toolInterceptor())
            .build();
        AgentExecutor executor = AgentExecutor.builder(llm, runner)
            .agent(AgentDefinition.builder("calc-bot").model("model-x").build())
            .observer(telemetry.agentObserver())
            .build()) {
      AgentResponse answer = executor.ask("s1", "What is 17 * 23?");
      assertThat(answer.message()).isEqualTo("17 * 23 = 391");
    }
  }

  @Test
  void contentIsRecordedOnlyWhenTheHostOptsInAndStillCarriesNoSecret() {
    InMemorySpanExporter spans = InMemorySpanExporter.create();
    InMemoryMetricReader metrics = InMemoryMetricReader.create();
    OpenTelemetrySdk otel = sdk(spans, metrics);
    runTurn(RcrtTelemetry.builder(otel).captureContent(true).build());

    List<SpanData> all = spans.getFinishedSpanItems();
    SpanData calculator = one(all, "execute_tool calculator");
    assertThat(calculator.getAttributes().get(AttributeKey.stringKey("gen_ai.tool.call.arguments"))).isEqualTo("{\"expression\":\"17 * 23\"}");
    assertThat(calculator.getAttributes().get(AttributeKey.stringKey("gen_ai.tool.call.result"))).contains("391");
    assertThat(one(all, "execute_tool leaky").getAttributes().get(AttributeKey.stringKey("gen_ai.tool.call.result")))
        .isEqualTo("could not use [secret]");

    List<SpanData> chats = all.stream().filter(s -> s.getName().equals("chat model-x")).toList();
    String firstInput = chats.get(0).getAttributes().get(AttributeKey.stringKey("gen_ai.input.messages"));
    assertThat(RcrtJson.parse(firstInput).get(0).get("role").asText()).isEqualTo("system");
    assertThat(firstInput).contains("{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"What is 17 * 23?\"}]}");
    assertThat(chats.get(0).getAttributes().get(AttributeKey.stringKey("gen_ai.output.messages")))
        .contains("\"type\":\"tool_call\",\"id\":\"call_1\",\"name\":\"calculator\"").contains("\"finish_reason\":\"tool_calls\"");
    assertThat(chats.get(1).getAttributes().get(AttributeKey.stringKey("gen_ai.input.messages")))
        .contains("\"type\":\"tool_call_response\",\"id\":\"call_2\"").contains("[secret]");
    assertThat(chats.get(1).getAttributes().get(AttributeKey.stringKey("gen_ai.output.messages"))).contains("17 * 23 = 391");

    assertThat(all.toString() + metrics.collectAllMetrics()).doesNotContain(CANARY);
    otel.close();
  }

  @Test
  void aModelThatEchoesSecretsIntoToolArgumentsPutsNoneOnASpanNorInTheTrail() {
    echoedSecretsStayOffSpans(true);
  }

  @Test
  void chatSpansAreScrubbedOfTheRunnersSecretsAlsoWhenTheClientWasInstrumentedWithoutTheRunner() {
    echoedSecretsStayOffSpans(false);
  }

  /** A turn whose model echoes the runner's secret and its own key; the client instrumented with the runner, or without it. */
  private static void echoedSecretsStayOffSpans(boolean withRunner) {
    String modelKey = "sk-model-key-55120";
    InMemorySpanExporter spans = InMemorySpanExporter.create();
    InMemoryMetricReader metrics = InMemoryMetricReader.create();
    OpenTelemetrySdk otel = sdk(spans, metrics);
    RcrtTelemetry telemetry = RcrtTelemetry.builder(otel).captureContent(true).build();
    InMemoryBreadcrumbStore store = new InMemoryBreadcrumbStore();
    BuiltinTools.seed(store);
    store.create(BreadcrumbCreate.builder("tool.definition.v1", "Leaky").context(RcrtJson.parse("""
        {"name":"leaky","description":"uses its secret","required_secrets":["CANARY"],
         "implementation":{"type":"builtin","handler":"leaky"}}""")).build());
    ScriptedLlmClient scripted = ScriptedLlmClient.replying(
        new ChatResponse(dev.rcrt.llm.ChatMessage.assistant(null, List.of(new ToolCall("call_1", "leaky", "{}"))),
            "tool_calls", null, "model-x"),
        new ChatResponse(dev.rcrt.llm.ChatMessage.assistant(null, List.of(
            new ToolCall("call_2", "echo", "{\"message\":\"" + CANARY + " and " + modelKey + "\"}"))), "tool_calls", null, "model-x"),
        new ChatResponse(dev.rcrt.llm.ChatMessage.assistant("done", List.of()), "stop", null, "model-x"));
    LlmClient keyed = new LlmClient() { // a client that holds a key, as OpenAiCompatibleLlmClient does
      @Override
      public ChatResponse chat(dev.rcrt.llm.ChatRequest request) {
        return scripted.chat(request);
      }

      @Override
      public java.util.Set<String> secretValues() {
        return java.util.Set.of(modelKey);
      }
    };
    try (ToolRunner runner = ToolRunner.builder(store)
            .handler("leaky", (input, context) -> RcrtJson.object().put("used", context.secrets().get("CANARY").length()))
            .secretResolver(SecretResolver.environment(Map.of("CANARY", CANARY)))
            .addInterceptor(telemetry.toolInterceptor())
            .build();
        AgentExecutor executor = AgentExecutor.builder(withRunner ? telemetry.instrument(keyed, "openai", runner)
                : telemetry.instrument(keyed, "openai"), runner)
            .agent(AgentDefinition.builder("calc-bot").model("model-x").build())
            .observer(telemetry.agentObserver())
            .build()) {
      assertThat(executor.ask("s1", "Use the tools").message()).isEqualTo("done");
    }
    List<SpanData> all = spans.getFinishedSpanItems();
    assertThat(one(all, "execute_tool echo").getAttributes().get(AttributeKey.stringKey("gen_ai.tool.call.arguments")))
        .isEqualTo("{\"message\":\"[secret] and [secret]\"}");
    assertThat(all.toString()).doesNotContain(CANARY).doesNotContain(modelKey);
    assertThat(RcrtJson.write(store.search(dev.rcrt.core.Selector.all(), 1000, 0))).doesNotContain(CANARY).doesNotContain(modelKey);
    otel.close();
  }

  private static SpanData one(List<SpanData> spans, String name) {
    List<SpanData> found = spans.stream().filter(s -> s.getName().equals(name)).toList();
    assertThat(found).as(name + " among " + spans.stream().map(SpanData::getName).toList()).hasSize(1);
    return found.get(0);
  }

  @Test
  void theVectorIndexLagIsAGaugeThatFallsToZeroWhenTheRecordsAreEmbedded() throws Exception {
    InMemoryMetricReader metrics = InMemoryMetricReader.create();
    OpenTelemetrySdk otel = sdk(InMemorySpanExporter.create(), metrics);
    dev.rcrt.testing.TestEmbeddings model = new dev.rcrt.testing.TestEmbeddings();
    dev.rcrt.core.InMemoryBreadcrumbStore store = dev.rcrt.core.InMemoryBreadcrumbStore.builder().embeddings(model).build();
    dev.rcrt.core.VectorSearch search = store.vectorSearch().orElseThrow();
    try (AutoCloseable gauge = RcrtTelemetry.create(otel).observeVectorIndex(search, "memory")) {
      model.hold();
      store.create(dev.rcrt.core.BreadcrumbCreate.builder("note.v1", "waits").context(RcrtJson.object().put("text", "a note")).build());
      assertThat(pending(metrics)).isEqualTo(1);
      model.release();
      assertThat(search.awaitIndexed(java.time.Duration.ofSeconds(30))).isTrue();
      assertThat(pending(metrics)).isZero();
    }
    otel.close();
  }

  @Test
  void theEventDeliveryLagIsAGaugeInSecondsReadAtEachCollection() throws Exception {
    InMemoryMetricReader metrics = InMemoryMetricReader.create();
    OpenTelemetrySdk otel = sdk(InMemorySpanExporter.create(), metrics);
    java.util.concurrent.atomic.AtomicReference<java.time.Duration> lag = new java.util.concurrent.atomic.AtomicReference<>(java.time.Duration.ZERO);
    try (AutoCloseable gauge = RcrtTelemetry.create(otel).observeEventDeliveryLag(lag::get, "shop")) {
      assertThat(lagSeconds(metrics)).isZero();
      lag.set(java.time.Duration.ofMillis(12_500)); // a stalled writer has held delivery back 12.5 s
      assertThat(lagSeconds(metrics)).isEqualTo(12.5);
    }
    otel.close();
  }

  /** A tool whose code ignores interruption until released. */
  public static final class Spinner {
    static final java.util.concurrent.atomic.AtomicBoolean RELEASE = new java.util.concurrent.atomic.AtomicBoolean();

    @dev.rcrt.tools.Tool(description = "Spins ignoring interrupts", timeoutMs = 200)
    public String spin(@dev.rcrt.tools.ToolParam(name = "n") int n) {
      long i = 0;
      while (!RELEASE.get()) {
        i++;
      }
      return "spun " + i;
    }
  }

  @Test
  void abandonedToolCallsAreAGauge() throws Exception {
    InMemoryMetricReader metrics = InMemoryMetricReader.create();
    OpenTelemetrySdk otel = sdk(InMemorySpanExporter.create(), metrics);
    Spinner.RELEASE.set(false);
    try (ToolRunner runner = ToolRunner.builder(InMemoryBreadcrumbStore.builder().build()).tools(new Spinner()).build();
        AutoCloseable gauge = RcrtTelemetry.create(otel).observeAbandonedToolCalls(runner)) {
      assertThat(abandoned(metrics)).isZero();
      assertThat(runner.call(dev.rcrt.tools.ToolRequest.of("spin", RcrtJson.parse("{\"n\":1}"), "agent-1")).errorCode()).isEqualTo("tool_timeout");
      assertThat(abandoned(metrics)).isEqualTo(1);
    } finally {
      Spinner.RELEASE.set(true);
    }
    otel.close();
  }

  private static long abandoned(InMemoryMetricReader metrics) {
    MetricData gauge = metrics.collectAllMetrics().stream().filter(m -> m.getName().equals("rcrt.tool.abandoned_calls")).findFirst().orElseThrow();
    return gauge.getLongGaugeData().getPoints().iterator().next().getValue();
  }

  private static double lagSeconds(InMemoryMetricReader metrics) {
    MetricData gauge = metrics.collectAllMetrics().stream().filter(m -> m.getName().equals("rcrt.store.event_delivery.lag")).findFirst().orElseThrow();
    assertThat(gauge.getUnit()).isEqualTo("s");
    var point = gauge.getDoubleGaugeData().getPoints().iterator().next();
    assertThat(point.getAttributes().get(AttributeKey.stringKey("rcrt.store"))).isEqualTo("shop");
    return point.getValue();
  }

  private static long pending(InMemoryMetricReader metrics) {
    MetricData gauge = metrics.collectAllMetrics().stream().filter(m -> m.getName().equals("rcrt.vector_index.pending")).findFirst().orElseThrow();
    var point = gauge.getLongGaugeData().getPoints().iterator().next();
    assertThat(point.getAttributes().get(AttributeKey.stringKey("rcrt.store"))).isEqualTo("memory");
    return point.getValue();
  }
}
