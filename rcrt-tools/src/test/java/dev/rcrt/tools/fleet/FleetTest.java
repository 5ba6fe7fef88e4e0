package dev.rcrt.tools.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.tools.ToolCallOptions;
import dev.rcrt.tools.ToolHandler;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Several runners listening on one store: each request is run by one of them and answered once. */
class FleetTest {
  private final InMemoryBreadcrumbStore store = new InMemoryBreadcrumbStore();

  private void publish(String name) {
    store.create(BreadcrumbCreate.builder("tool.definition.v1", name).context(RcrtJson.parse("{\"name\":\"" + name + "\"}")).build());
  }

  private ToolRunner runner(String name, ToolHandler handler, Duration lease) {
    return ToolRunner.builder(store).handler(name, handler).claimLease(lease).build();
  }

  /** Dispatches {@code n} requests for {@code tool} through {@code caller}, all at once, and waits for each to succeed. */
  private static void dispatchAndAwait(ToolRunner caller, String tool, int n) throws Exception {
    List<CompletableFuture<ToolResponse>> answers = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      answers.add(caller.dispatch(ToolRequest.of(tool, RcrtJson.object().put("i", i), "agent"), ToolCallOptions.host()));
    }
    for (CompletableFuture<ToolResponse> a : answers) {
      assertThat(a.get(30, TimeUnit.SECONDS).success()).isTrue();
    }
  }

  @Test
  void threeListeningRunnersAnswerEachOfThreeHundredRequestsExactlyOnce() throws Exception {
    publish("count");
    Map<String, AtomicInteger> runsByRunner = new ConcurrentHashMap<>();
    AtomicInteger runs = new AtomicInteger();
    List<ToolRunner> runners = new ArrayList<>();
    List<Subscription> listening = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      String me = "r" + i;
      ToolRunner r = runner("count", (in, ctx) -> {
        runs.incrementAndGet();
        runsByRunner.computeIfAbsent(me, k -> new AtomicInteger()).incrementAndGet();
        return RcrtJson.object().put("by", me);
      }, Duration.ofSeconds(15));
      runners.add(r);
      listening.add(r.listen());
    }
    try (ToolRunner caller = ToolRunner.builder(store).build()) {
      dispatchAndAwait(caller, "count", 300);
    } finally {
      listening.forEach(Subscription::close);
      runners.forEach(ToolRunner::close);
    }
    List<Breadcrumb> responses = store.search(Selector.schema(ToolResponse.SCHEMA), 1000, 0);
    Map<String, Long> perRequest = responses.stream().collect(Collectors.groupingBy(
        b -> b.tags().stream().filter(t -> t.startsWith("request:")).findFirst().orElseThrow(), Collectors.counting()));
    assertThat(responses).hasSize(300);
    assertThat(responses).allSatisfy(r -> assertThat(r.tags()).anyMatch(t -> t.startsWith("runner:") && t.contains("@")));
    assertThat(perRequest.values()).containsOnly(1L);
    assertThat(runs.get()).as("each request ran once").isEqualTo(300);
    assertThat(runsByRunner.keySet()).as("the work was shared: %s", runsByRunner).hasSizeGreaterThan(1);
  }

  @Test
  void aRequestWhoseRunnerStopsRenewingIsTakenOverAndStillAnsweredOnce() throws Exception {
    publish("slow");
    CountDownLatch firstStarted = new CountDownLatch(1);
    CountDownLatch releaseFirst = new CountDownLatch(1);
    AtomicInteger runs = new AtomicInteger();
    ToolHandler stuckOnce = (in, ctx) -> {
      if (runs.incrementAndGet() == 1) {
        firstStarted.countDown();
        releaseFirst.await(); // a runner that stalls: alive, but no longer renewing once its listener is closed
      }
      return RcrtJson.object().put("run", runs.get());
    };
    Duration lease = Duration.ofMillis(300);
    try (ToolRunner stalled = runner("slow", stuckOnce, lease); ToolRunner survivor = runner("slow", stuckOnce, lease);
        ToolRunner caller = ToolRunner.builder(store).build()) {
      Subscription stalledListening = stalled.listen();
      CompletableFuture<ToolResponse> answer = caller.dispatch(ToolRequest.of("slow", RcrtJson.object(), "agent"), ToolCallOptions.host());
      assertThat(firstStarted.await(10, TimeUnit.SECONDS)).isTrue();
      stalledListening.close(); // stops its renewals: its claim runs out after the lease
      try (Subscription ignored = survivor.listen()) {
        ToolResponse response = answer.get(10, TimeUnit.SECONDS);
        assertThat(response.output().get("run").asInt()).as("answered by the takeover").isEqualTo(2);
        releaseFirst.countDown(); // the stalled runner finishes late
        assertThat(stalled.drain(java.time.Duration.ofSeconds(10))).as("its late attempt ended").isTrue();
      }
    }
    assertThat(store.search(Selector.schema(ToolResponse.SCHEMA), 10, 0)).as("one response for the request").hasSize(1);
    assertThat(runs.get()).as("the tool ran twice: at least once, answered exactly once").isEqualTo(2);
  }

  @Test
  void aFleetOfFourSpendsOneClaimOnEachRequestNotOnePerRunner() throws Exception {
    dev.rcrt.testing.TestClock clock = new dev.rcrt.testing.TestClock();
    InMemoryBreadcrumbStore shared = InMemoryBreadcrumbStore.builder().clock(clock).build();
    Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
    dev.rcrt.core.WorkClaims counting = new dev.rcrt.testing.ForwardingWorkClaims(shared.claims().orElseThrow()) {
      @Override
      public Attempt attempt(String key, String owner, Duration lease) {
        attempts.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        return delegate.attempt(key, owner, lease);
      }
    };
    dev.rcrt.core.BreadcrumbStore counted = new dev.rcrt.testing.ForwardingBreadcrumbStore(shared) {
      @Override
      public java.util.Optional<dev.rcrt.core.WorkClaims> claims() {
        return java.util.Optional.of(counting);
      }
    };
    shared.create(BreadcrumbCreate.builder("tool.definition.v1", "count").context(RcrtJson.parse("{\"name\":\"count\"}")).build());
    AtomicInteger runs = new AtomicInteger();
    Map<String, AtomicInteger> runsByRunner = new ConcurrentHashMap<>();
    List<ToolRunner> runners = new ArrayList<>();
    List<Subscription> listening = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      String me = "r" + i;
      ToolRunner r = ToolRunner.builder(counted).timeSource(clock).claimLease(Duration.ofSeconds(15)).handler("count", (in, ctx) -> {
        runs.incrementAndGet();
        runsByRunner.computeIfAbsent(me, k -> new AtomicInteger()).incrementAndGet();
        return RcrtJson.object();
      }).build();
      runners.add(r);
      listening.add(r.listen()); // joins the fleet
    }
    clock.advance(Duration.ofSeconds(5)); // a third of the lease: each runner reads the members again, all four of them now
    try (ToolRunner caller = ToolRunner.builder(shared).timeSource(clock).build()) {
      dispatchAndAwait(caller, "count", 200);
    } finally {
      listening.forEach(Subscription::close);
      runners.forEach(ToolRunner::close);
    }
    Map<String, AtomicInteger> onRequests = attempts.entrySet().stream().filter(e -> e.getKey().startsWith("tool.request:"))
        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    assertThat(onRequests).hasSize(200);
    assertThat(onRequests.values()).as("claims per request, whatever the fleet size").allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    assertThat(runs.get()).as("each request ran once").isEqualTo(200);
    assertThat(runsByRunner.keySet()).as("the work was shared: %s", runsByRunner).hasSize(4);
  }
}
