package dev.rcrt.tools.trust;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.Principal;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.testing.StoreWaits;
import dev.rcrt.testing.TestClock;
import dev.rcrt.tools.ApprovalDecision;
import dev.rcrt.tools.ApprovalRequest;
import dev.rcrt.tools.ToolCallOptions;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import dev.rcrt.tools.testing.TrustFixture;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Approvals without a handler are records: a call that needs one writes an {@code
 * approval.request.v1} and stays open; only the host's (or a named approver's) {@code
 * approval.decision.v1} lets it run or denies it, in whichever runner runs it next; an unanswered
 * request expires as a denial.
 */
class ApprovalRecordsTest extends TrustFixture {
  private final AtomicInteger runs = new AtomicInteger();

  @BeforeEach
  void wireMoney() {
    define("tool.definition.v1", "{\"name\":\"wire-money\",\"requires_approval\":true}");
  }

  private ToolRunner runner(TestClock clock, Principal... approvers) {
    return runner(b -> b.handler("wire-money", (in, ctx) -> RcrtJson.object().put("n", runs.incrementAndGet()))
        .timeSource(clock).approvalExpiry(Duration.ofHours(24)).approvers(approvers));
  }

  private ToolResponse call(ToolRunner runner, ToolRequest request) {
    return runner.call(request, ToolCallOptions.by(Principal.agent("agent-1")).withTags("session:s", "run:r1"));
  }

  private void decide(String requestId, boolean approve, String writer) {
    // written as that principal's runtime would stamp it
    store.create(new ApprovalDecision(requestId, approve, Principal.ofWriter(writer), Instant.now(), "because", "r1").toBreadcrumb());
  }

  private List<Breadcrumb> responses(String requestId) {
    return store.search(Selector.schema(ToolResponse.SCHEMA).withAllTags("request:" + requestId), 10, 0);
  }

  @Test
  void withoutAHandlerTheCallWaitsAsARecordAndTheHostsApprovalRunsItOnce() {
    ToolRunner runner = runner(new TestClock(Instant.now()) /* the store keeps the system time: approvals are judged on the records it stamps */);
    ToolRequest request = ToolRequest.of("wire-money", RcrtJson.parse("{\"to\":\"bob\",\"key\":\"alpha-secret-111\"}"), "agent-1");
    runner.addSecretValue("alpha-secret-111");

    ToolResponse pending = call(runner, request);
    assertThat(pending.errorCode()).isEqualTo("tool_approval_pending");
    assertThat(pending.error()).contains("waits for approval until");
    assertThat(responses(request.requestId())).as("the request stays open").isEmpty();
    List<Breadcrumb> asked = store.search(Selector.schema(ApprovalRequest.SCHEMA), 10, 0);
    assertThat(asked).hasSize(1);
    ApprovalRequest approval = ApprovalRequest.fromBreadcrumb(asked.get(0));
    assertThat(approval.requestId()).isEqualTo(request.requestId());
    assertThat(approval.runId()).isEqualTo("r1");
    assertThat(approval.requestedBy()).isEqualTo(Principal.agent("agent-1"));
    assertThat(RcrtJson.write(approval.input())).contains("bob").doesNotContain("alpha-secret-111");
    assertThat(asked.get(0).tags()).contains("run:r1", "session:s", "request:" + request.requestId());

    assertThat(runner.run(store.get(request.requestId()).orElseThrow()).errorCode()).as("asking again writes nothing new")
        .isEqualTo("tool_approval_pending");
    assertThat(store.search(Selector.schema(ApprovalRequest.SCHEMA), 10, 0)).hasSize(1);
    assertThat(runs).hasValue(0);

    decide(request.requestId(), true, "host");
    ToolResponse ran = runner.run(store.get(request.requestId()).orElseThrow());
    assertThat(ran.success()).isTrue();
    assertThat(runner.run(store.get(request.requestId()).orElseThrow()).success()).isTrue();
    assertThat(runs).as("run once, answered once").hasValue(1);
    assertThat(responses(request.requestId())).hasSize(1);
  }

  @Test
  void aDecisionWrittenByAToolAnAgentOrAnUnlistedUserIsIgnored() {
    ToolRunner runner = runner(new TestClock(Instant.now()) /* the store keeps the system time: approvals are judged on the records it stamps */, Principal.ofWriter("user:alice"));
    ToolRequest request = ToolRequest.of("wire-money", RcrtJson.object(), "agent-1");
    call(runner, request);
    decide(request.requestId(), true, "tool:breadcrumb-create");
    decide(request.requestId(), true, "agent:agent-1");
    decide(request.requestId(), true, "user:mallory");
    for (String forged : new String[] {"Tool:forger", "TOOL:x", " tool:x", "mallory", "host ", "agent:a\u0000"}) {
      // a writer text no runtime stamps, written straight into a shared store: read fail-closed, never as the host
      store.create(new ApprovalDecision(request.requestId(), true, Principal.host(), Instant.now(), "forged", "r1").toBreadcrumb()
          .withCreatedBy(forged));
    }
    assertThat(runner.run(store.get(request.requestId()).orElseThrow()).errorCode()).isEqualTo("tool_approval_pending");
    assertThat(runs).hasValue(0);

    decide(request.requestId(), false, "user:alice");
    ToolResponse denied = runner.run(store.get(request.requestId()).orElseThrow());
    assertThat(denied.errorCode()).isEqualTo("tool_denied");
    assertThat(denied.error()).contains("by user:alice (because)");
    decide(request.requestId(), true, "host");
    assertThat(runner.run(store.get(request.requestId()).orElseThrow()).errorCode()).as("a denial is final").isEqualTo("tool_denied");
    assertThat(runs).hasValue(0);
  }

  @Test
  void anApprovalRequestNobodyDecidesExpiresAsADenial() {
    TestClock clock = new TestClock(Instant.now()) /* the store keeps the system time: approvals are judged on the records it stamps */;
    ToolRunner runner = runner(clock);
    ToolRequest request = ToolRequest.of("wire-money", RcrtJson.object(), "agent-1");
    assertThat(call(runner, request).errorCode()).isEqualTo("tool_approval_pending");
    clock.advance(Duration.ofHours(23));
    assertThat(runner.run(store.get(request.requestId()).orElseThrow()).errorCode()).isEqualTo("tool_approval_pending");
    clock.advance(Duration.ofHours(1));
    ToolResponse expired = runner.run(store.get(request.requestId()).orElseThrow());
    assertThat(expired.errorCode()).isEqualTo("tool_denied");
    assertThat(expired.error()).contains("expired");
    assertThat(runs).hasValue(0);
  }

  @Test
  void inEventModeADecisionLetsAListeningRunnerRunTheCallOnce() throws Exception {
    TestClock clock = new TestClock(Instant.now()) /* the store keeps the system time: approvals are judged on the records it stamps */;
    ToolRunner listener = runner(clock);
    ToolRunner second = runner(clock);
    Subscription one = listener.listen();
    Subscription two = second.listen();
    closing.add(one::close);
    closing.add(two::close);
    ToolRunner writer = runner(b -> {});
    ToolRequest request = ToolRequest.of("wire-money", RcrtJson.object(), "agent-1");
    CompletableFuture<ToolResponse> answered =
        writer.dispatch(request, ToolCallOptions.by(Principal.agent("agent-1")).withTags("run:r1"));
    awaitApprovalRequest();
    assertThat(answered).isNotDone();

    decide(request.requestId(), true, "host");
    assertThat(answered.get(10, TimeUnit.SECONDS).success()).isTrue();
    // both listeners were handed the decision as it was written (this store delivers events on the writer's thread); the one
    // offered it second looks a lease (15 s) later unless the response came first: let that moment pass, then wait until
    // both finished what they were handed
    clock.advance(Duration.ofMinutes(1));
    assertThat(listener.drain(Duration.ofSeconds(60))).isTrue();
    assertThat(second.drain(Duration.ofSeconds(60))).isTrue();
    assertThat(runs).as("two listeners, one run").hasValue(1);
    assertThat(responses(request.requestId())).hasSize(1);
  }

  @Test
  void aRunnerThatLostTheClaimOnARequestWaitingForApprovalDoesNotKeepLookingAtIt() throws Exception {
    TestClock clock = new TestClock(Instant.now()) /* the store keeps the system time: approvals are judged on the records it stamps */;
    ToolRunner one = runner(b -> b.handler("wire-money", (in, ctx) -> RcrtJson.object()).timeSource(clock).claimLease(Duration.ofSeconds(15)));
    ToolRunner two = runner(b -> b.handler("wire-money", (in, ctx) -> RcrtJson.object()).timeSource(clock).claimLease(Duration.ofSeconds(15)));
    Subscription a = one.listen();
    Subscription b = two.listen();
    closing.add(a::close);
    closing.add(b::close);
    int members = clock.pendingTimers(); // the listening runners' renewals of their fleet membership, for as long as they listen
    assertThat(members).as("each runner renews its membership of the fleet").isEqualTo(2);
    runner(x -> {}).submit(ToolRequest.of("wire-money", RcrtJson.object(), "agent-1"), ToolCallOptions.by(Principal.agent("agent-1")));
    awaitApprovalRequest();
    String key = ToolRequest.claimKey(store.search(Selector.schema(ApprovalRequest.SCHEMA), 1, 0).get(0).contextText("request_id"));
    // the winner completes the key (the call waits for a decision, no response); the other runner looks a lease later (one
    // timer: it was offered the request second, or lost the claim), or found the key completed and watches nothing. The winner's lease
    // renewal is a timer too until it completes the key, so wait for the completion and for the count to settle
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    int stable = 0;
    while (stable < 5 && System.nanoTime() < deadline) {
      stable = clock.pendingTimers() <= members + 1 && store.claims().orElseThrow().isCompleted(key) ? stable + 1 : 0;
      Thread.sleep(10);
    }
    assertThat(clock.pendingTimers()).isLessThanOrEqualTo(members + 1);
    for (int i = 0; i < 3; i++) {
      clock.advance(Duration.ofSeconds(16));
      Thread.sleep(200);
    }
    assertThat(clock.pendingTimers()).as("the key is completed with no response: nobody polls it every lease").isEqualTo(members);
    assertThat(responses(store.search(Selector.schema(ApprovalRequest.SCHEMA), 1, 0).get(0).contextText("request_id"))).isEmpty();
  }

  private void awaitApprovalRequest() throws InterruptedException {
    assertThat(StoreWaits.until(store, () -> !store.search(Selector.schema(ApprovalRequest.SCHEMA), 1, 0).isEmpty(), Duration.ofSeconds(60)))
        .as("the call's approval request is recorded").isTrue();
  }
}
