package dev.rcrt.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbUpdate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ToolRunnerTest {
  private InMemoryBreadcrumbStore store;
  private ToolRunner runner;

  @BeforeEach
  void setUp() {
    store = new InMemoryBreadcrumbStore();
    BuiltinTools.seed(store);
    runner = ToolRunner.builder(store).build();
  }

  @AfterEach
  void tearDown() {
    runner.close();
  }

  private ToolResponse call(String tool, String input) {
    return runner.call(ToolRequest.of(tool, RcrtJson.parse(input), "test"), ToolCallOptions.host().withTags("session:s1"));
  }

  private void defineTool(String name, String inputSchema, String outputSchema) {
    store.create(
        BreadcrumbCreate.builder("tool.definition.v1", name)
            .context(
                RcrtJson.parse(
                    "{\"name\":\"" + name + "\",\"inputSchema\":" + inputSchema
                        + (outputSchema == null ? "" : ",\"outputSchema\":" + outputSchema) + "}"))
            .build());
  }

  @Test
  void aSuccessfulCallWritesAnRcrtToolResponseCorrelatedWithTheRequest() {
    ToolRequest request = ToolRequest.of("calculator", RcrtJson.parse("{\"expression\":\"17 * 23\"}"), "agent-1");
    ToolResponse typed = runner.call(request, ToolCallOptions.host().withTags("session:s1"));
    Breadcrumb response = store.search(Selector.schema("tool.response.v1"), 1, 0).get(0);
    assertThat(typed.output().get("result").asLong()).isEqualTo(391);

    assertThat(response.schemaName()).isEqualTo("tool.response.v1");
    assertThat(response.tags()).containsExactly("tool:response", "request:" + request.requestId(), "workspace:tools", "session:s1");
    assertThat(response.context().get("timestamp").asText()).matches("\\d{4}-\\d{2}-\\d{2}T.*Z");
    assertThat(store.get(request.requestId()).orElseThrow().tags()).contains(ToolRunner.DIRECT_TAG);
    JsonNode c = response.context();
    assertThat(c.get("request_id").asText()).isEqualTo(request.requestId());
    assertThat(c.get("tool").asText()).isEqualTo("calculator");
    assertThat(c.get("status").asText()).isEqualTo("success");
    assertThat(c.at("/output/result").asLong()).isEqualTo(391);
    assertThat(c.get("execution_time_ms").isIntegralNumber()).isTrue();
    assertThat(c.has("error")).isFalse();

    Breadcrumb stored = store.get(request.requestId()).orElseThrow();
    assertThat(stored.schemaName()).isEqualTo("tool.request.v1");
    assertThat(stored.tags()).contains("tool:request", "workspace:tools", "session:s1");
    assertThat(stored.context().get("requestId").asText()).isEqualTo(request.requestId());
    assertThat(stored.context().get("requestedBy").asText()).isEqualTo("agent-1");
  }

  @Test
  void inputThatViolatesTheSchemaIsAnErrorResponseNamingThePointer() {
    defineTool("unit_convert", "{\"type\":\"object\",\"properties\":{\"value\":{\"type\":\"number\"}},\"required\":[\"value\"]}", null);
    runnerHandler("unit_convert", (in, ctx) -> RcrtJson.object());

    ToolResponse r = call("unit_convert", "{\"value\":\"ten\"}");
    assertThat(r.success()).isFalse();
    assertThat(r.errorCode()).isEqualTo("tool_input_invalid");
    assertThat(r.error()).isEqualTo("tool 'unit_convert' input /value: expected number, found string");
  }

  @Test
  void anInputNumberBeyondADoubleIsRefusedWhateverBuiltTheTree() {
    ToolResponse r = runner.call(ToolRequest.of("calculator",
        RcrtJson.object().put("expression", "1").set("n", RcrtJson.nodes().numberNode(new java.math.BigInteger("9".repeat(900)))), "test"));
    assertThat(r.errorCode()).isEqualTo("tool_input_invalid");
    assertThat(r.error()).contains("the number at /n is outside the range of a double");
  }

  @Test
  void aMissingRequiredFieldIsNamed() {
    ToolResponse r = call("calculator", "{}");
    assertThat(r.errorCode()).isEqualTo("tool_input_invalid");
    assertThat(r.error()).isEqualTo("tool 'calculator' input: required key [expression] not found");
  }

  @Test
  void outputThatViolatesTheSchemaIsAnErrorResponse() {
    defineTool("liar", "{\"type\":\"object\"}", "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}}}");
    runnerHandler("liar", (in, ctx) -> RcrtJson.object().put("n", "not a number"));

    ToolResponse r = call("liar", "{}");
    assertThat(r.errorCode()).isEqualTo("tool_output_invalid");
    assertThat(r.error()).isEqualTo("tool 'liar' output /n: expected integer, found string");
  }

  @Test
  void anOutputPastTheLimitIsAnErrorAndIsNotRecorded() {
    defineTool("hoarder", "{\"type\":\"object\"}", null);
    String blob = "z".repeat(5_000);
    runner.close();
    runner = ToolRunner.builder(store).maxOutputBytes(4_000).handler("hoarder", (in, ctx) -> RcrtJson.object().put("blob", blob)).build();
    ToolResponse r = call("hoarder", "{}");
    assertThat(r.errorCode()).isEqualTo("tool_too_large");
    assertThat(r.error()).startsWith("tool 'hoarder' returned more than 4000 bytes of output");
    assertThat(RcrtJson.write(store.search(Selector.schema("tool.response.v1"), 1, 0))).doesNotContain(blob);
  }

  @Test
  void anUnknownToolIsAnErrorResponseListingTheAvailableTools() {
    ToolResponse r = call("weather", "{}");
    assertThat(r.errorCode()).isEqualTo("tool_not_found");
    assertThat(r.error())
        .isEqualTo("no tool named 'weather'; available tools: breadcrumb-create, breadcrumb-search, calculator, echo, random, timer");
  }

  @Test
  void aThrowingHandlerBecomesAnErrorResponseWithTheCause() {
    defineTool("broken", "{\"type\":\"object\"}", null);
    runnerHandler("broken", (in, ctx) -> { throw new IllegalStateException("disk on fire"); });

    ToolResponse r = call("broken", "{}");
    assertThat(r.success()).isFalse();
    assertThat(r.errorCode()).isEqualTo("tool_failed");
    assertThat(r.error()).isEqualTo("tool 'broken' failed: IllegalStateException: disk on fire");
  }

  @Test
  void aToolPastItsTimeLimitIsStoppedAndReportedAsATimeout() {
    runner.close();
    runner = ToolRunner.builder(store).defaultTimeout(Duration.ofMillis(100)).build();
    store.update("tool-def-timer", 1, BreadcrumbUpdate.ofContext(
        ((com.fasterxml.jackson.databind.node.ObjectNode) store.get("tool-def-timer").orElseThrow().context().deepCopy()).without("capabilities")));

    ToolResponse r = call("timer", "{\"seconds\":30}");
    assertThat(r.errorCode()).isEqualTo("tool_timeout");
    assertThat(r.error()).isEqualTo("tool 'timer' timed out after 100 ms");
  }

  @Test
  void aBuiltinToolWithoutARegisteredHandlerNamesWhatIsMissing() {
    defineTool("orphan", "{\"type\":\"object\"}", null);
    ToolResponse r = call("orphan", "{}");
    assertThat(r.errorCode()).isEqualTo("tool_unsupported");
    assertThat(r.error()).startsWith("tool 'orphan' is builtin, but no handler named 'orphan' is registered");
  }

  @Test
  void anImplementationTypeWithoutALoaderIsAnErrorNamingTheType() {
    store.create(BreadcrumbCreate.builder("tool.v1", "Remote")
        .context(RcrtJson.parse("{\"name\":\"remote\",\"implementation\":{\"type\":\"carrier-pigeon\"}}")).build());
    ToolResponse r = call("remote", "{}");
    assertThat(r.errorCode()).isEqualTo("tool_unsupported");
    assertThat(r.error()).contains("implementation type 'carrier-pigeon'");
  }

  @Test
  void anInvalidInputSchemaIsReportedAsAnInvalidDefinition() {
    defineTool("badschema", "{\"type\":\"no-such-type\"}", null);
    runnerHandler("badschema", (in, ctx) -> RcrtJson.object());
    ToolResponse r = call("badschema", "{}");
    assertThat(r.errorCode()).isEqualTo("tool_definition_invalid");
    assertThat(r.error()).startsWith("tool 'badschema' input_schema");
  }

  @Test
  void aToolBreadcrumbUpdatedInTheStoreIsUsedOnTheNextCall() {
    defineTool("strict", "{\"type\":\"object\"}", null);
    runnerHandler("strict", (in, ctx) -> RcrtJson.object().put("ok", true));
    assertThat(call("strict", "{\"x\":1}").success()).isTrue();

    Breadcrumb def = store.search(Selector.schema("tool.definition.v1").withMatch(dev.rcrt.core.ContextMatch.eq("$.name", "strict")), 1, 0).get(0);
    store.update(def.id(), def.version(), BreadcrumbUpdate.ofContext(RcrtJson.parse(
        "{\"name\":\"strict\",\"inputSchema\":{\"type\":\"object\",\"additionalProperties\":false}}")));

    ToolResponse r = call("strict", "{\"x\":1}");
    assertThat(r.errorCode()).isEqualTo("tool_input_invalid");
    assertThat(r.error()).contains("extraneous key [x] is not permitted");
  }

  @Test
  void aHandlerSeesItsRequestAndTheToolConfigBreadcrumb() {
    defineTool("configured", "{\"type\":\"object\"}", null);
    store.create(BreadcrumbCreate.builder("tool.config.v1", "cfg")
        .context(RcrtJson.parse("{\"tool\":\"configured\",\"config\":{\"unit\":\"celsius\"}}")).build());
    AtomicReference<ToolContext> seen = new AtomicReference<>();
    runnerHandler("configured", (in, ctx) -> { seen.set(ctx); return RcrtJson.object(); });

    ToolRequest request = ToolRequest.of("configured", RcrtJson.object(), "agent-7");
    runner.call(request);
    assertThat(seen.get().requestId()).isEqualTo(request.requestId());
    assertThat(seen.get().requestedBy()).isEqualTo("agent-7");
    assertThat(seen.get().config().get("unit").asText()).isEqualTo("celsius");
    assertThat(seen.get().store().get(request.requestId())).isPresent();
  }

  @Test
  void aMalformedRequestBreadcrumbStillGetsAnErrorResponse() {
    Breadcrumb bad = store.create(BreadcrumbCreate.builder("tool.request.v1", "no tool").context(RcrtJson.parse("{\"input\":{}}")).build());
    ToolResponse r = runner.run(bad);
    assertThat(r.requestId()).isEqualTo(bad.id());
    assertThat(r.error()).contains("context/tool: required");
  }

  @Test
  void aListeningRunnerAnswersWrittenRequestsButLeavesDirectOnesToTheirRunner() throws Exception {
    InMemoryBreadcrumbStore sync = InMemoryBreadcrumbStore.builder().eventExecutor(Runnable::run).build();
    BuiltinTools.seed(sync);
    java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();
    try (ToolRunner listener = ToolRunner.builder(sync).handler("count", (in, ctx) -> RcrtJson.object().put("n", runs.incrementAndGet())).build();
        ToolRunner direct = ToolRunner.builder(sync).handler("count", (in, ctx) -> RcrtJson.object().put("n", runs.incrementAndGet())).build();
        dev.rcrt.core.Subscription ignored = listener.listen()) {
      sync.create(BreadcrumbCreate.builder("tool.definition.v1", "count").context(RcrtJson.parse("{\"name\":\"count\"}")).build());
      direct.call(ToolRequest.of("count", RcrtJson.object(), "a"));
      ToolRequest viaStore = ToolRequest.of("count", RcrtJson.object(), "b");
      java.util.concurrent.CompletableFuture<Breadcrumb> answered = new java.util.concurrent.CompletableFuture<>();
      Breadcrumb response;
      try (dev.rcrt.core.Subscription waiting = sync.subscribe(
          Selector.schema("tool.response.v1").withAllTags("request:" + viaStore.requestId()), e -> answered.complete(e.breadcrumb()))) {
        sync.create(viaStore.toBreadcrumb(List.of(), dev.rcrt.core.Principal.agent("b"), null));
        response = answered.get(10, java.util.concurrent.TimeUnit.SECONDS);
      }
      assertThat(response.context().get("status").asText()).isEqualTo("success");
      assertThat(sync.search(Selector.schema("tool.response.v1"), 10, 0)).hasSize(2);
      assertThat(runs.get()).isEqualTo(2);
    }
  }

  @Test
  void runRejectsABreadcrumbThatIsNotAToolRequest() {
    Breadcrumb note = store.create(BreadcrumbCreate.builder("note.v1", "n").build());
    assertThatThrownBy(() -> runner.run(note)).isInstanceOf(IllegalArgumentException.class);
  }

  private void runnerHandler(String name, ToolHandler handler) {
    runner.close();
    runner = ToolRunner.builder(store).handler(name, handler).build();
  }
}
