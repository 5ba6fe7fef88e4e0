package dev.rcrt.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.Principal;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.testing.TestClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The execution chain: host interceptors and event listeners on every path, and the chain's contract. */
class ToolChainTest {
  private final InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().eventExecutor(Runnable::run).build();
  private final List<String> events = new CopyOnWriteArrayList<>();
  private final AtomicInteger intercepted = new AtomicInteger();
  private ToolRunner runner;

  private final ToolEventListener recorder =
      new ToolEventListener() {
        @Override public void callStart(ToolRequest r) { events.add("start " + r.tool()); }
        @Override public void toolResolved(ToolRequest r, ToolDefinition t) { events.add("resolved " + t.name() + "@" + t.sourceVersion()); }
        @Override public void callDenied(ToolRequest r, ToolDefinition t, String code) { events.add("denied " + code); }
        @Override public void inputValidated(ToolRequest r, ToolDefinition t) { events.add("validated"); }
        @Override public void callFailed(ToolRequest r, ToolResponse response) { events.add("failed " + response.errorCode()); }
        @Override public void callEnd(ToolRequest r, ToolResponse response) {
          events.add("end " + response.success());
          ended.release();
        }
      };
  /** A permit per call ended: callEnd is reported just after the response is recorded, on the listener's thread. */
  private final Semaphore ended = new Semaphore(0);

  @BeforeEach
  void setUp() {
    BuiltinTools.seed(store);
    runner = build(b -> {});
  }

  @AfterEach
  void tearDown() {
    runner.close();
  }

  private ToolRunner build(Consumer<ToolRunner.Builder> more) {
    ToolRunner.Builder b = ToolRunner.builder(store)
        .addInterceptor(chain -> {
          intercepted.incrementAndGet();
          return chain.proceed(chain.request());
        })
        .eventListener(recorder);
    more.accept(b);
    return b.build();
  }

  private void rebuild(Consumer<ToolRunner.Builder> more) {
    runner.close();
    runner = build(more);
  }

  private ToolResponse calc(String expression) {
    return runner.call(ToolRequest.of("calculator", RcrtJson.object().put("expression", expression), "test"));
  }

  @Test
  void aHostInterceptorAndListenerSeeADirectCallInOrder() {
    assertThat(calc("6 * 7").output().get("result").asInt()).isEqualTo(42);
    assertThat(intercepted).hasValue(1);
    assertThat(events).containsExactly("start calculator", "resolved calculator@1", "validated", "end true");
  }

  @Test
  void aHostInterceptorAndListenerSeeRequestsAListenerRuns() throws Exception {
    try (Subscription listening = runner.listen()) {
      ToolResponse r = runner.dispatch(ToolRequest.of("calculator", RcrtJson.object().put("expression", "1 + 1"), "a"),
          ToolCallOptions.by(Principal.agent("a"))).get(10, TimeUnit.SECONDS);
      assertThat(r.output().get("result").asInt()).isEqualTo(2);
    }
    // the response is recorded (completing the future) just before callEnd is reported
    assertThat(ended.tryAcquire(60, TimeUnit.SECONDS)).as("callEnd reported").isTrue();
    assertThat(intercepted).hasValue(1);
    assertThat(events).containsExactly("start calculator", "resolved calculator@1", "validated", "end true");
  }

  @Test
  void aHostInterceptorAndListenerSeeAStoredRequestRun() {
    Breadcrumb stored = store.create(ToolRequest.of("calculator", RcrtJson.object().put("expression", "2"), "a").toBreadcrumb(List.of(), Principal.host(), null));
    assertThat(runner.run(stored).success()).isTrue();
    assertThat(intercepted).hasValue(1);
    assertThat(events).endsWith("end true");
  }

  @Test
  void listenersHearDenialsAndFailures() {
    store.create(BreadcrumbCreate.builder("tool.definition.v1", "pay").context(RcrtJson.parse("{\"name\":\"pay\",\"requires_approval\":true}")).build());
    rebuild(b -> b.handler("pay", (in, ctx) -> in).approvalHandler((r, t) -> false));
    runner.call(ToolRequest.of("pay", RcrtJson.object(), "a"));
    assertThat(events).containsExactly("start pay", "resolved pay@1", "denied tool_denied", "failed tool_denied", "end false");

    events.clear();
    calc("1 +");
    assertThat(events).containsExactly("start calculator", "resolved calculator@1", "validated", "failed tool_failed", "end false");

    events.clear();
    store.create(BreadcrumbCreate.builder("tool.v1", "internal").context(RcrtJson.parse(
        "{\"name\":\"internal\",\"implementation\":{\"type\":\"http\",\"endpoint\":\"http://127.0.0.1:9/admin\"}}")).build());
    runner.call(ToolRequest.of("internal", RcrtJson.object(), "a"));
    assertThat(events).containsExactly(
        "start internal", "resolved internal@1", "validated", "denied tool_capability_denied", "failed tool_capability_denied", "end false");
  }

  @Test
  void anApplicationInterceptorMayAnswerACallItselfAndTheAnswerIsRecorded() {
    AtomicInteger ran = new AtomicInteger();
    store.create(BreadcrumbCreate.builder("tool.definition.v1", "slow").context(RcrtJson.parse("{\"name\":\"slow\"}")).build());
    rebuild(b -> b.handler("slow", (in, ctx) -> RcrtJson.object().put("n", ran.incrementAndGet()))
        .addInterceptor(chain -> ToolResponse.success(chain.request().requestId(), chain.tool().name(), RcrtJson.object().put("cached", true), 0)));
    ToolRequest request = ToolRequest.of("slow", RcrtJson.object(), "a");
    assertThat(runner.call(request).output().get("cached").asBoolean()).isTrue();
    assertThat(ran).hasValue(0);
    Breadcrumb recorded = store.search(Selector.schema(ToolResponse.SCHEMA).withAllTags("request:" + request.requestId()), 1, 0).get(0);
    assertThat(recorded.context().at("/output/cached").asBoolean()).isTrue();
  }

  @Test
  void aRuntimeInterceptorSeesOnlyValidatedCallsAndMayRewriteTheInput() {
    List<String> seen = new CopyOnWriteArrayList<>();
    rebuild(b -> b.addRuntimeInterceptor(chain -> {
      seen.add(chain.request().input().path("expression").asText());
      return chain.proceed(chain.request().withInput(RcrtJson.object().put("expression", "100")));
    }));
    assertThat(calc("6 * 7").output().get("result").asInt()).isEqualTo(100);
    runner.call(ToolRequest.of("calculator", RcrtJson.object().put("expression", 5), "a"));
    assertThat(seen).containsExactly("6 * 7");
  }

  @Test
  void anInterceptorThatProceedsTwiceIsNamedInTheError() {
    rebuild(b -> b.addInterceptor(new TwiceInterceptor()));
    ToolResponse r = calc("1");
    assertThat(r.errorCode()).isEqualTo("tool_failed");
    assertThat(r.error()).isEqualTo("tool 'calculator': chain link '" + TwiceInterceptor.class.getName()
        + "' failed: IllegalStateException: '" + TwiceInterceptor.class.getName() + "' called proceed() more than once");
  }

  @Test
  void anInterceptorThatThrowsOrReturnsNothingIsNamedAndTheCallIsStillRecorded() {
    rebuild(b -> b.addInterceptor(chain -> null));
    ToolRequest request = ToolRequest.of("calculator", RcrtJson.object().put("expression", "1"), "a");
    ToolResponse r = runner.call(request);
    assertThat(r.error()).startsWith("tool 'calculator': chain link '").endsWith("' returned no response");
    assertThat(store.search(Selector.schema(ToolResponse.SCHEMA).withAllTags("request:" + request.requestId()), 1, 0)).hasSize(1);

    rebuild(b -> b.addInterceptor(chain -> { throw new IllegalArgumentException("quota exceeded"); }));
    assertThat(calc("1").error()).endsWith("failed: IllegalArgumentException: quota exceeded");
  }

  @Test
  void anInterceptorCannotChangeTheToolItRuns() {
    rebuild(b -> b.addInterceptor(chain -> chain.proceed(ToolRequest.of("echo", chain.request().input(), null))));
    assertThat(calc("1").error()).contains("changed the request id or tool name");
  }

  @Test
  void aJavaToolPastItsDeadlineIsInterruptedOnTheCallersThreadAndTheThreadIsLeftClean() {
    TestClock clock = new TestClock();
    store.create(BreadcrumbCreate.builder("tool.definition.v1", "sleepy").context(RcrtJson.parse("{\"name\":\"sleepy\",\"limits\":{\"timeout_ms\":50}}")).build());
    rebuild(b -> b.timeSource(clock).handler("sleepy", (in, ctx) -> {
      clock.advance(Duration.ofMillis(49));
      assertThat(Thread.currentThread().isInterrupted()).as("not before its limit").isFalse();
      clock.advance(Duration.ofMillis(1));
      Thread.sleep(60_000);
      return in;
    }));
    ToolResponse r = runner.call(ToolRequest.of("sleepy", RcrtJson.object(), "a"));
    assertThat(r.errorCode()).isEqualTo("tool_timeout");
    assertThat(r.error()).isEqualTo("tool 'sleepy' timed out after 50 ms");
    assertThat(r.executionTimeMs()).as("measured on the runner's time").isEqualTo(50);
    assertThat(Thread.currentThread().isInterrupted()).isFalse();
    assertThat(calc("2 + 2").output().get("result").asInt()).isEqualTo(4);
    assertThat(clock.pendingTimers()).as("every call's timer is cancelled when it ends").isZero();
  }

  @Test
  void aJavaToolThatIgnoresItsInterruptStillEndsAsATimeoutAndItsResultIsDiscarded() {
    TestClock clock = new TestClock();
    store.create(BreadcrumbCreate.builder("tool.definition.v1", "stubborn").context(RcrtJson.parse("{\"name\":\"stubborn\",\"limits\":{\"timeout_ms\":1000}}")).build());
    rebuild(b -> b.timeSource(clock).handler("stubborn", (in, ctx) -> {
      clock.advance(Duration.ofSeconds(2));
      Thread.interrupted();
      return RcrtJson.object().put("late", true);
    }));
    ToolResponse r = runner.call(ToolRequest.of("stubborn", RcrtJson.object(), "a"));
    assertThat(r.errorCode()).isEqualTo("tool_timeout");
    assertThat(r.output()).isNull();
  }

  static final class TwiceInterceptor implements ToolInterceptor {
    @Override
    public ToolResponse intercept(ToolChain chain) {
      chain.proceed(chain.request());
      return chain.proceed(chain.request());
    }
  }
}
