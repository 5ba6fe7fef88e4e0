package dev.rcrt.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbListener;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.BreadcrumbUpdate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.Principal;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.core.WorkClaims;
import dev.rcrt.testing.ForwardingBreadcrumbStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What code the SDK does not own can do to a runner: throw an {@link Error} from a handler, a
 * runtime's load, an interceptor or a listener; kill the runners that take its request; hold an
 * invoker while its tool changes. Every call still ends with one recorded response and {@code
 * callEnd}, and nothing hangs.
 */
class ContainmentTest {
  private final InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().eventExecutor(Runnable::run).build();

  private Breadcrumb define(String name, String type) {
    return store.create(
        BreadcrumbCreate.builder("tool.v1", name)
            .context(RcrtJson.parse("{\"name\":\"" + name + "\",\"implementation\":{\"type\":\"" + type + "\"}}"))
            .build());
  }

  private static ToolResponse call(ToolRunner runner, String tool) {
    return runner.call(ToolRequest.of(tool, RcrtJson.object(), "test"));
  }

  private List<Breadcrumb> records(String schema) {
    return store.search(Selector.schema(schema), 100, 0);
  }

  /** Counts the events of every call. */
  private static final class Events implements ToolEventListener {
    final List<String> seen = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void callStart(ToolRequest request) {
      seen.add("start");
    }

    @Override
    public void callFailed(ToolRequest request, ToolResponse response) {
      seen.add("failed");
    }

    @Override
    public void callEnd(ToolRequest request, ToolResponse response) {
      seen.add("end");
    }
  }

  @Test
  void aHandlersAssertionErrorBecomesOneErrorResponseAndCallEnd() {
    define("asserts", "builtin");
    Events events = new Events();
    try (ToolRunner runner =
        ToolRunner.builder(store).eventListener(events).handler("asserts", (in, ctx) -> {
          throw new AssertionError("invariant broken");
        }).build()) {
      ToolResponse r = call(runner, "asserts");
      assertThat(r.success()).isFalse();
      assertThat(r.errorCode()).isEqualTo("tool_failed");
      assertThat(r.error()).contains("AssertionError").contains("invariant broken");
      assertThat(records("tool.request.v1")).hasSize(1);
      assertThat(records("tool.response.v1")).singleElement()
          .satisfies(b -> assertThat(b.context().path("status").asText()).isEqualTo("error"));
      assertThat(events.seen).containsExactly("start", "failed", "end");
    }
  }

  @Test
  void aHandlersStackOverflowIsTheToolsFailure() {
    define("recurses", "builtin");
    try (ToolRunner runner = ToolRunner.builder(store).handler("recurses", (in, ctx) -> recurse(in)).build()) {
      ToolResponse r = call(runner, "recurses");
      assertThat(r.errorCode()).isEqualTo("tool_failed");
      assertThat(r.error()).contains("StackOverflowError");
    }
  }

  private static JsonNode recurse(JsonNode in) {
    return recurse(in.deepCopy());
  }

  @Test
  void aFatalErrorIsRethrownOnlyAfterTheResponseIsRecordedAndCallEndIsSeen() {
    define("oom", "builtin");
    Events events = new Events();
    try (ToolRunner runner = ToolRunner.builder(store).eventListener(events).handler("oom", (in, ctx) -> {
      throw new OutOfMemoryError("simulated");
    }).build()) {
      assertThatThrownBy(() -> call(runner, "oom")).isInstanceOf(OutOfMemoryError.class);
      assertThat(records("tool.response.v1")).singleElement()
          .satisfies(b -> assertThat(b.context().path("error").asText()).contains("OutOfMemoryError"));
      assertThat(events.seen).containsExactly("start", "failed", "end");
    }
  }

  @Test
  void aRuntimeWhoseLoadThrowsLinkageErrorFailsEveryCallInsteadOfHanging() {
    define("newer", "newer-jvm");
    AtomicInteger loads = new AtomicInteger();
    ToolRuntime runtime = new ToolRuntime() {
      @Override
      public String type() {
        return "newer-jvm";
      }

      @Override
      public Loaded load(ToolDefinition definition, Services services) {
        loads.incrementAndGet();
        throw new UnsupportedClassVersionError("Tool has been compiled by a more recent version of the Java Runtime");
      }
    };
    try (ToolRunner runner = ToolRunner.builder(store).runtime(runtime).build()) {
      for (int i = 0; i < 2; i++) {
        ToolResponse r = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> call(runner, "newer"));
        assertThat(r.errorCode()).isEqualTo("tool_failed");
        assertThat(r.error()).contains("could not be loaded").contains("UnsupportedClassVersionError").contains("more recent version");
      }
      assertThat(loads).hasValue(2); // a failed load is not kept: the second call tries again
      assertThat(records("tool.response.v1")).hasSize(2);
    }
  }

  @Test
  void anInterceptorsErrorNamesTheLinkAndTheCallStillEnds() {
    define("echo", "builtin");
    try (ToolRunner runner = ToolRunner.builder(store).addInterceptor(chain -> {
      throw new NoClassDefFoundError("com/acme/Missing");
    }).build()) {
      ToolResponse r = call(runner, "echo");
      assertThat(r.errorCode()).isEqualTo("tool_failed");
      assertThat(r.error()).contains("chain link").contains("NoClassDefFoundError").contains("com/acme/Missing");
      assertThat(records("tool.response.v1")).hasSize(1);
    }
  }

  @Test
  void aListenerThatThrowsAnErrorDoesNotStopTheCall() {
    define("echo", "builtin");
    try (ToolRunner runner = ToolRunner.builder(store).eventListener(new ToolEventListener() {
      @Override
      public void callStart(ToolRequest request) {
        throw new AssertionError("listener bug");
      }
    }).build()) {
      ToolResponse r = runner.call(ToolRequest.of("echo", RcrtJson.parse("{\"message\":\"hi\"}"), "test"));
      assertThat(r.success()).isTrue();
    }
  }

  @Test
  void aStoreThatFailsToRecordTheRequestStartsNoCall() {
    define("echo", "builtin");
    Events events = new Events();
    BreadcrumbStore failing = new Forwarding(store) {
      @Override
      public Breadcrumb create(BreadcrumbCreate create) {
        if ("tool.request.v1".equals(create.schemaName())) {
          throw new IllegalStateException("disk full");
        }
        return super.create(create);
      }
    };
    try (ToolRunner runner = ToolRunner.builder(failing).eventListener(events).build()) {
      assertThatThrownBy(() -> call(runner, "echo")).hasMessageContaining("disk full");
      assertThat(events.seen).isEmpty();
    }
  }

  @Test
  void aStoreThatFailsToRecordTheResponseStillEndsTheCall() {
    define("echo", "builtin");
    Events events = new Events();
    BreadcrumbStore failing = new Forwarding(store) {
      @Override
      public Breadcrumb create(BreadcrumbCreate create) {
        if ("tool.response.v1".equals(create.schemaName())) {
          throw new IllegalStateException("disk full");
        }
        return super.create(create);
      }
    };
    try (ToolRunner runner = ToolRunner.builder(failing).eventListener(events).build()) {
      assertThatThrownBy(() -> runner.call(ToolRequest.of("echo", RcrtJson.parse("{\"message\":\"hi\"}"), "test")))
          .hasMessageContaining("disk full");
      assertThat(events.seen).containsExactly("start", "end");
    }
  }

  @Test
  void closingARunnerLeavesNoStoreSubscription() {
    Forwarding counting = new Forwarding(store);
    ToolRunner runner = ToolRunner.builder(counting).build();
    Subscription listening = runner.listen();
    assertThat(counting.open).hasValueGreaterThan(1);
    runner.close();
    assertThat(counting.open).hasValue(0);
    listening.close(); // closing it again afterwards is harmless
    assertThat(counting.open).hasValue(0);
  }

  @Test
  void aRequestThatRunnersKeptDyingOnIsAnsweredWithAnErrorInsteadOfRunning() throws Exception {
    define("echo", "builtin");
    AtomicInteger runs = new AtomicInteger();
    ToolRequest request = ToolRequest.of("echo", RcrtJson.parse("{\"message\":\"hi\"}"), "agent:a");
    Breadcrumb stored = store.create(request.toBreadcrumb(List.of(), Principal.agent("a"), null));
    WorkClaims claims = store.claims().orElseThrow();
    for (int died = 0; died < 3; died++) { // three runners took it and never completed it
      WorkClaims.Claim claim = claims.tryClaim("tool.request:" + stored.id(), "runner:dead-" + died, Duration.ofMinutes(1)).orElseThrow();
      claims.release(claim);
    }
    CompletableFuture<Breadcrumb> answered = new CompletableFuture<>();
    try (Subscription watch = store.subscribe(Selector.schema("tool.response.v1"), e -> answered.complete(e.breadcrumb()));
        ToolRunner runner = ToolRunner.builder(store).eventListener(new ToolEventListener() {
          @Override
          public void callStart(ToolRequest r) {
            runs.incrementAndGet();
          }
        }).build();
        Subscription listening = runner.listen()) {
      Breadcrumb response = answered.get(20, TimeUnit.SECONDS);
      assertThat(response.context().path("status").asText()).isEqualTo("error");
      assertThat(response.context().path("error_code").asText()).isEqualTo("tool_failed");
      assertThat(response.context().path("error").asText()).contains("taken by runners 3 times").contains("not run again");
      assertThat(runs).hasValue(0);
      assertThat(records("tool.response.v1")).hasSize(1);
    }
  }

  @Test
  void aRequestClaimedFewerTimesThanTheLimitStillRuns() throws Exception {
    define("echo", "builtin");
    ToolRequest request = ToolRequest.of("echo", RcrtJson.parse("{\"message\":\"hi\"}"), "agent:a");
    Breadcrumb stored = store.create(request.toBreadcrumb(List.of(), Principal.agent("a"), null));
    WorkClaims claims = store.claims().orElseThrow();
    claims.release(claims.tryClaim("tool.request:" + stored.id(), "runner:dead", Duration.ofMinutes(1)).orElseThrow());
    CompletableFuture<Breadcrumb> answered = new CompletableFuture<>();
    try (Subscription watch = store.subscribe(Selector.schema("tool.response.v1"), e -> answered.complete(e.breadcrumb()));
        ToolRunner runner = ToolRunner.builder(store).maxAttempts(2).build();
        Subscription listening = runner.listen()) {
      assertThat(answered.get(20, TimeUnit.SECONDS).context().path("status").asText()).isEqualTo("success");
    }
  }

  @Test
  void anInvokerIsClosedOnlyAfterTheCallUsingItEnds() throws Exception {
    Breadcrumb tool = define("slow", "held");
    AtomicBoolean closed = new AtomicBoolean();
    AtomicBoolean closedWhileRunning = new AtomicBoolean();
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    ToolRuntime runtime = new ToolRuntime() {
      @Override
      public String type() {
        return "held";
      }

      @Override
      public Loaded load(ToolDefinition definition, Services services) {
        return new Loaded() {
          @Override
          public JsonNode call(JsonNode input, Call call) throws Exception {
            running.countDown();
            finish.await();
            closedWhileRunning.set(closed.get());
            return RcrtJson.object().put("ok", true);
          }

          @Override
          public void close() {
            closed.set(true);
          }
        };
      }
    };
    try (ToolRunner runner = ToolRunner.builder(store).runtime(runtime).build()) {
      CompletableFuture<ToolResponse> inFlight = CompletableFuture.supplyAsync(() -> call(runner, "slow"));
      assertThat(running.await(20, TimeUnit.SECONDS)).isTrue();
      store.update(tool.id(), tool.version(), BreadcrumbUpdate.ofContext(tool.context()));
      assertThat(closed).isFalse();
      finish.countDown();
      assertThat(inFlight.get(20, TimeUnit.SECONDS).success()).isTrue();
      assertThat(closedWhileRunning).isFalse();
      assertThat(closed).isTrue();
    }
  }

  @Test
  void aRuntimeSharedByTwoRunnersIsClosedByTheLastOne() {
    AtomicInteger closes = new AtomicInteger();
    ToolRuntime shared = new ToolRuntime() {
      @Override
      public String type() {
        return "shared";
      }

      @Override
      public Loaded load(ToolDefinition definition, Services services) {
        return (input, call) -> input;
      }

      @Override
      public void close() {
        closes.incrementAndGet();
      }
    };
    ToolRunner first = ToolRunner.builder(store).runtime(shared).build();
    ToolRunner second = ToolRunner.builder(store).runtime(shared).build();
    first.close();
    assertThat(closes).hasValue(0);
    define("same", "shared");
    assertThat(call(second, "same").success()).isTrue();
    second.close();
    assertThat(closes).hasValue(1);
  }

  /** A store that forwards every call and counts the subscriptions open on it. */
  static class Forwarding extends ForwardingBreadcrumbStore {
    final AtomicInteger open = new AtomicInteger();

    Forwarding(BreadcrumbStore store) {
      super(store);
    }

    @Override
    public Subscription subscribe(Selector selector, BreadcrumbListener listener) {
      Subscription inner = super.subscribe(selector, listener);
      open.incrementAndGet();
      AtomicBoolean done = new AtomicBoolean();
      return () -> {
        if (done.compareAndSet(false, true)) {
          open.decrementAndGet();
          inner.close();
        }
      };
    }
  }
}
