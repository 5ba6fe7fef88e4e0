package dev.rcrt.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Tools from annotated methods and typed lambdas: generated schemas, published records, the whole chain. */
class AnnotatedToolsTest {
  enum Currency { EUR, JPY, USD }

  record Money(double amount, Currency currency) {}

  record Half(double value) {}

  record Number(double value) {}

  public static final class Bank {
    @Tool(description = "Convert an amount of money into another currency", category = "finance")
    public Money convert(@ToolParam(name = "money", description = "what to convert") Money money,
        @ToolParam(name = "to", description = "the currency wanted") Currency to) {
      double rate = to == Currency.JPY ? 160 : 1;
      return new Money(money.amount() * rate, to);
    }

    @Tool(name = "split_bill", description = "Split a bill into equal parts", requiresApproval = true, timeoutMs = 2_000)
    public List<Money> split(@ToolParam(name = "total") Money total, @ToolParam(name = "parts") int parts) {
      List<Money> out = new ArrayList<>();
      for (int i = 0; i < parts; i++) {
        out.add(new Money(total.amount() / parts, total.currency()));
      }
      return out;
    }

    @Tool(description = "Always fails")
    public void broken(@ToolParam(name = "why") String why) {
      throw new IllegalStateException("the vault is closed: " + why);
    }
  }

  public static final class OtherBank {
    @Tool(name = "convert", description = "Another convert")
    public String convert(@ToolParam(name = "x") String x) {
      return x;
    }
  }

  public static final class Unnamed {
    @Tool(description = "Parameter without a name")
    public String echo(String text) {
      return text;
    }
  }

  private final InMemoryBreadcrumbStore store = new InMemoryBreadcrumbStore();

  private static JsonNode context(Breadcrumb b) {
    return b.context();
  }

  @Test
  void everyToolMethodIsPublishedWithGeneratedSchemasAndAnsweredThroughTheChain() {
    try (ToolRunner runner = ToolRunner.builder(store).tools(new Bank()).approvalHandler((request, tool) -> true).build()) {
      List<Breadcrumb> records = store.search(Selector.schema("tool.v1"), 10, 0);
      assertThat(records).extracting(b -> b.context().get("name").asText()).containsExactlyInAnyOrder("convert", "split_bill", "broken");
      JsonNode convert = records.stream().filter(b -> b.title().equals("convert")).findFirst().orElseThrow().context();
      assertThat(convert.at("/input_schema/required").toString()).isEqualTo("[\"money\",\"to\"]");
      assertThat(convert.at("/input_schema/properties/to/description").asText()).isEqualTo("the currency wanted");
      assertThat(RcrtJson.write(convert.get("input_schema"))).contains("\"EUR\"", "\"JPY\"", "\"amount\"", "\"number\"");
      assertThat(convert.at("/output_schema/type").asText()).isEqualTo("object");
      assertThat(convert.get("category").asText()).isEqualTo("finance");
      JsonNode split = records.stream().filter(b -> b.title().equals("split_bill")).findFirst().orElseThrow().context();
      assertThat(split.get("requires_approval").asBoolean()).isTrue();
      assertThat(split.at("/limits/timeout_ms").asLong()).isEqualTo(2_000);
      assertThat(split.at("/output_schema/type").asText()).isEqualTo("array");

      ToolResponse converted = runner.call(ToolRequest.of("convert", RcrtJson.parse("{\"money\":{\"amount\":20,\"currency\":\"EUR\"},\"to\":\"JPY\"}"), "agent-x"));
      assertThat(converted.error()).isNull();
      assertThat(converted.output().get("amount").asDouble()).isEqualTo(3200.0);
      assertThat(converted.output().get("currency").asText()).isEqualTo("JPY");

      ToolResponse parts = runner.call(ToolRequest.of("split_bill", RcrtJson.parse("{\"total\":{\"amount\":90,\"currency\":\"USD\"},\"parts\":3}"), "agent-x"));
      assertThat(parts.error()).isNull();
      assertThat(parts.output()).hasSize(3);
      assertThat(parts.output().get(0).get("amount").asDouble()).isEqualTo(30.0);
    }
  }

  @Test
  void anArgumentOfTheWrongTypeIsRefusedByTheGeneratedSchemaWithAPointer() {
    try (ToolRunner runner = ToolRunner.builder(store).tools(new Bank()).build()) {
      ToolResponse r = runner.call(ToolRequest.of("convert", RcrtJson.parse("{\"money\":{\"amount\":\"lots\",\"currency\":\"EUR\"},\"to\":\"GBP\"}"), "agent-x"));
      assertThat(r.errorCode()).isEqualTo(ToolErrorCode.TOOL_INPUT_INVALID.code());
      assertThat(r.error()).contains("/money/amount").contains("/to");
    }
  }

  @Test
  void aValueTheSchemaAllowsButJavaCannotTakeIsRefusedInTheSchemasWordsWithoutJavaTypesOrParserLocations() {
    try (ToolRunner runner = ToolRunner.builder(store).tools(new Bank()).approvalHandler((request, tool) -> true).build()) {
      // "integer" lets 3,000,000,000 through; a Java int cannot hold it
      ToolResponse r = runner.call(ToolRequest.of("split_bill",
          RcrtJson.parse("{\"total\":{\"amount\":90,\"currency\":\"EUR\"},\"parts\":3000000000}"), "agent-x"));
      assertThat(r.errorCode()).isEqualTo(ToolErrorCode.TOOL_INPUT_INVALID.code());
      assertThat(r.error()).startsWith("input /parts ").contains("an integer from -2147483648 to 2147483647")
          .doesNotContain("java.", "int`", "Source", "line:", "column:", "reference chain", "3000000000");
    }
  }

  @Test
  void aMethodThatThrowsIsAToolFailedResponseWithItsMessage() {
    try (ToolRunner runner = ToolRunner.builder(store).tools(new Bank()).build()) {
      ToolResponse r = runner.call(ToolRequest.of("broken", RcrtJson.parse("{\"why\":\"night\"}"), "agent-x"));
      assertThat(r.errorCode()).isEqualTo(ToolErrorCode.TOOL_FAILED.code());
      assertThat(r.error()).contains("the vault is closed: night");
    }
  }

  @Test
  void buildingAgainWithTheSameDefinitionsWritesNoNewVersion() {
    ToolRunner.builder(store).tools(new Bank()).build().close();
    ToolRunner.builder(store).tools(new Bank()).build().close();
    assertThat(store.search(Selector.schema("tool.v1"), 10, 0)).allSatisfy(b -> assertThat(b.version()).isEqualTo(1));
  }

  @Test
  void aNameTwoMethodsShareIsAnErrorAtBuildTimeNamingBoth() {
    assertThatThrownBy(() -> ToolRunner.builder(store).tools(new Bank(), new OtherBank()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'convert'")
        .hasMessageContaining("Bank.convert(Money, Currency)")
        .hasMessageContaining("OtherBank.convert(String)");
  }

  @Test
  void aParameterWithoutANameSaysHowToNameIt() {
    assertThatThrownBy(() -> ToolRunner.builder(store).tools(new Unnamed()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-parameters")
        .hasMessageContaining("@ToolParam(name");
  }

  @Test
  void aTypedLambdaIsAToolWithGeneratedSchemas() {
    try (ToolRunner runner = ToolRunner.builder(store).tool("halve", "Halve a number", Number.class, Half.class, n -> new Half(n.value() / 2)).build()) {
      JsonNode record = store.search(Selector.schema("tool.v1"), 10, 0).get(0).context();
      assertThat(record.at("/input_schema/properties/value/type").asText()).isEqualTo("number");
      ToolResponse r = runner.call(ToolRequest.of("halve", RcrtJson.parse("{\"value\":9}"), "agent-x"));
      assertThat(r.error()).isNull();
      assertThat(r.output().get("value").asDouble()).isEqualTo(4.5);
    }
    ToolHandler plain = ToolHandler.typed(Number.class, Half.class, n -> new Half(n.value() / 2));
    assertThat(plain).isNotNull();
  }

  /** Java tools that misbehave: one spins ignoring interrupts until released, one runs out of memory. */
  public static final class Hostile {
    static final java.util.concurrent.atomic.AtomicBoolean RELEASE = new java.util.concurrent.atomic.AtomicBoolean();

    @Tool(description = "Spins ignoring interrupts", timeoutMs = 1_500)
    public String spin(@ToolParam(name = "n") int n) {
      long i = 0;
      while (!RELEASE.get()) {
        i++; // a busy loop: no blocking call, no interrupt check
      }
      return "spun " + i;
    }

    @Tool(description = "Spins briefly-bounded", timeoutMs = 100)
    public String quickSpin(@ToolParam(name = "n") int n) {
      return spin(n);
    }

    @Tool(description = "Runs out of memory")
    public String exhaust(@ToolParam(name = "n") int n) {
      throw new OutOfMemoryError("simulated heap exhaustion");
    }
  }

  @Test
  @org.junit.jupiter.api.Timeout(120)
  void aBusyLoopingToolEndsToolTimeoutAtItsLimitAndTooManyAbandonedCallsAreRefused() {
    dev.rcrt.core.InMemoryBreadcrumbStore hostile = dev.rcrt.core.InMemoryBreadcrumbStore.builder().build();
    Hostile.RELEASE.set(false);
    try (ToolRunner runner = ToolRunner.builder(hostile).tools(new Hostile()).build()) {
      ToolResponse r = runner.call(ToolRequest.of("spin", RcrtJson.parse("{\"n\":1}"), "agent-1"));
      assertThat(r.errorCode()).isEqualTo("tool_timeout");
      assertThat(r.error()).contains("timed out after 1500 ms");
      assertThat(runner.abandonedCalls()).as("the spinning thread is abandoned and counted").isEqualTo(1);
      for (int i = 1; i < dev.rcrt.tools.internal.chain.JavaToolThreads.MAX_ABANDONED; i++) {
        assertThat(runner.call(ToolRequest.of("quickSpin", RcrtJson.parse("{\"n\":1}"), "agent-1")).errorCode()).isEqualTo("tool_timeout");
      }
      ToolResponse refused = runner.call(ToolRequest.of("quickSpin", RcrtJson.parse("{\"n\":1}"), "agent-1"));
      assertThat(refused.errorCode()).isEqualTo("tool_failed");
      assertThat(refused.error()).contains("8 Java tool calls still run past their deadline");
    } finally {
      Hostile.RELEASE.set(true);
    }
  }

  @Test
  void anOutOfMemoryErrorOfAToolMethodIsRethrownAfterItsResponseIsRecorded() {
    dev.rcrt.core.InMemoryBreadcrumbStore hostile = dev.rcrt.core.InMemoryBreadcrumbStore.builder().build();
    try (ToolRunner runner = ToolRunner.builder(hostile).tools(new Hostile()).build()) {
      assertThatThrownBy(() -> runner.call(ToolRequest.of("exhaust", RcrtJson.parse("{\"n\":1}"), "agent-1")))
          .isInstanceOf(OutOfMemoryError.class).hasMessage("simulated heap exhaustion");
      assertThat(hostile.search(dev.rcrt.core.Selector.schema(ToolResponse.SCHEMA), 5, 0)).singleElement()
          .satisfies(b -> assertThat(b.context().path("error").asText()).contains("OutOfMemoryError"));
    }
  }

  @Test
  @org.junit.jupiter.api.Timeout(120)
  void aCallsDeadlineIsSetBeforeItsCodeStartsSoCodeThatMovesTheClockAtOnceStillTimesOut() {
    dev.rcrt.testing.TestClock clock = new dev.rcrt.testing.TestClock();
    InMemoryBreadcrumbStore timed = new InMemoryBreadcrumbStore();
    timed.create(dev.rcrt.core.BreadcrumbCreate.builder("tool.definition.v1", "slow")
        .context(RcrtJson.parse("{\"name\":\"slow\",\"limits\":{\"timeout_ms\":30000}}")).build());
    java.util.concurrent.atomic.AtomicInteger timersAtStart = new java.util.concurrent.atomic.AtomicInteger(-1);
    java.util.concurrent.CountDownLatch never = new java.util.concurrent.CountDownLatch(1);
    try (ToolRunner runner = ToolRunner.builder(timed).timeSource(clock).handler("slow", (in, ctx) -> {
      timersAtStart.set(clock.pendingTimers());
      clock.advance(java.time.Duration.ofSeconds(31)); // past the limit before the caller's thread may have gone on
      never.await(); // ends only by the deadline's interrupt
      return in;
    }).build()) {
      ToolResponse r = runner.call(ToolRequest.of("slow", RcrtJson.object(), "me"));
      assertThat(timersAtStart.get()).as("the call's deadline was on the clock when its code started").isGreaterThanOrEqualTo(1);
      assertThat(r.errorCode()).isEqualTo("tool_timeout");
    }
  }
}
