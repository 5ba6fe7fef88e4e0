package dev.rcrt.tools.internal.fleet;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbEvent;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.Principal;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.core.TimeSource;
import dev.rcrt.core.WorkClaims;
import dev.rcrt.core.spi.Leases;
import dev.rcrt.core.spi.Members;
import dev.rcrt.core.spi.OwnedTimers;
import dev.rcrt.core.spi.Throwables;
import dev.rcrt.tools.ApprovalDecision;
import dev.rcrt.tools.ToolRequest;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One runner's side of event mode across a fleet: every {@code tool.request.v1} not run directly
 * is claimed ({@link WorkClaims}) before it runs, so one runner of all those listening on the store
 * runs it. The claim is renewed every third of its lease while the tool runs and completed after the
 * response is recorded. A runner that cannot claim a request (another holds it) looks again when
 * that lease could have run out, so a request whose runner died is taken over after at most one
 * lease. On start it also takes up requests already waiting. The response write is idempotent per
 * request, so a runner that finishes after losing its lease records nothing twice.
 *
 * <p>The listening runners of a store are the members of one fleet ({@link Members}, group {@code
 * tool-runner}): each request is tried at once only by the runner it is offered to first, and by
 * the others a lease later if no response came by then, so a fleet of any size spends one claim on
 * each request.
 *
 * <p>A request whose call waits for approval ends its claim without a response; an {@code
 * approval.decision.v1} for it offers it again under a claim of its own ({@code
 * tool.request:<id>/decision:<decision id>}), so the decided call runs once, in whichever runner
 * takes it. Decisions that arrived while no runner listened are taken up by the start-up sweep.
 */
public final class RequestWorker {
  private static final Logger LOG = LoggerFactory.getLogger(RequestWorker.class);
  /** The page size of the start-up sweep, which reads every waiting request page by page. */
  private static final int SWEEP = 1000;

  /** Records an error response for a request that is not run; see {@link #start()}. */
  @FunctionalInterface
  public interface Refusal {
    /** Records {@code request}'s error response ({@code tool_failed}, saying {@code why}) with {@code extraTags}. */
    void refuse(Breadcrumb request, List<String> extraTags, String why);
  }

  private final BreadcrumbStore store;
  private final WorkClaims claims;
  /** This runner's claims on requests, renewed on a thread of their own; closed with {@link #start()}'s subscription. */
  private final Leases leases;
  /** The listening runners of the store, and which of them each request is offered to first. */
  private final Members members;
  private final BiConsumer<Breadcrumb, List<String>> run;
  private final Refusal refuse;
  private final int maxAttempts;
  private final ExecutorService threads;
  private final Duration lease;
  private final String owner;
  private final List<String> answeredBy;
  private final String directTag;
  /** Looks at requests again later (another runner's lease, a store that failed); cancelled on close. */
  private final OwnedTimers timers;
  /** Requests another runner holds, by id, and the timer that looks at each again after its lease. */
  private final Map<String, TimeSource.Timer> watching = new ConcurrentHashMap<>();
  private volatile boolean closed;

  /**
   * @param run runs one stored request through the chain and records its response with the given extra tags
   * @param refuse records the error response of a request claimed {@code maxAttempts} times without an answer
   * @param maxAttempts how many claims of one request may end without a response before it is refused
   * @param directTag the tag of requests a runner runs itself, left alone here
   */
  public RequestWorker(
      BreadcrumbStore store, BiConsumer<Breadcrumb, List<String>> run, Refusal refuse, TimeSource time, ExecutorService threads,
      Duration lease, int maxAttempts, String directTag) {
    this.store = store;
    this.claims = Leases.claimsOf(store, time);
    this.leases = new Leases("rcrt-runner", time);
    this.run = run;
    this.refuse = refuse;
    this.maxAttempts = maxAttempts;
    this.timers = new OwnedTimers(time);
    this.threads = threads;
    this.lease = lease;
    this.directTag = directTag;
    this.owner = "runner:" + ManagementFactory.getRuntimeMXBean().getName() + ":" + UUID.randomUUID().toString().substring(0, 8);
    this.answeredBy = List.of(owner); // the response's tag says which runner answered
    this.members = new Members(store, claims, leases, "tool-runner", owner, lease, time);
  }

  /** The name this runner claims under and tags its responses with: {@code runner:<pid@host>:<random>}. */
  public String owner() {
    return owner;
  }

  /**
   * Starts taking requests: those created from now on, and all those already waiting (read a page
   * of {@value #SWEEP} at a time). A request whose claim has been taken {@code maxAttempts} times
   * without a response (its runners died or hung past their leases) is not run again: its error
   * response says so.
   */
  public Subscription start() {
    Subscription events = store.subscribe(Selector.schema(ToolRequest.SCHEMA), this::onEvent);
    Subscription decisions = store.subscribe(Selector.schema(ApprovalDecision.SCHEMA), this::onDecision);
    Subscription responses = store.subscribe(Selector.schema("tool.response.v1"), this::onResponse);
    members.join();
    for (int offset = 0; !closed; offset += SWEEP) {
      List<Breadcrumb> page = store.search(Selector.schema(ToolRequest.SCHEMA), SWEEP, offset);
      page.forEach(r -> offer(r, keyOf(r)));
      if (page.size() < SWEEP) {
        break;
      }
    }
    store.search(Selector.schema(ApprovalDecision.SCHEMA), SWEEP, 0).forEach(this::decided);
    return () -> {
      closed = true;
      events.close();
      decisions.close();
      responses.close();
      watching.clear();
      timers.cancelAll();
      members.close();
      leases.close();
    };
  }

  private static String keyOf(Breadcrumb request) {
    return ToolRequest.claimKey(request.id());
  }

  private void onEvent(BreadcrumbEvent event) {
    if (event.type() == BreadcrumbEvent.Type.CREATED) {
      offer(event.breadcrumb(), keyOf(event.breadcrumb()));
    }
  }

  private void onDecision(BreadcrumbEvent event) {
    if (event.type() == BreadcrumbEvent.Type.CREATED) {
      decided(event.breadcrumb());
    }
  }

  /** Offers the request a decision names again, under a claim of that decision's own; the chain judges the decision. */
  private void decided(Breadcrumb decision) {
    String requestId = decision.contextText("request_id");
    if (requestId == null || closed) {
      return;
    }
    try {
      store.get(requestId)
          .filter(r -> ToolRequest.SCHEMA.equals(r.schemaName()))
          .ifPresent(r -> offer(r, keyOf(r) + "/decision:" + decision.id()));
    } catch (RuntimeException e) {
      LOG.warn("could not read the request decision '{}' names: {}", decision.id(), e.getMessage());
    }
  }

  /** Offers {@code request} to this runner: tried now if it is the runner the request is offered to first. */
  private void offer(Breadcrumb request, String key) {
    offer(request, key, false);
  }

  /** Hands {@code request} to a runner thread; {@code look}: tried even when another runner is offered it first. */
  private void offer(Breadcrumb request, String key, boolean look) {
    // a direct call's runner answers it; a tool cannot mark its requests so (they would go unanswered), whatever the record says
    if (closed || request.hasTag(directTag) && Principal.writerOf(request).kind() != Principal.Kind.TOOL) {
      return;
    }
    try {
      threads.execute(() -> attempt(request, key, look));
    } catch (RejectedExecutionException shuttingDown) {
      LOG.debug("runner closing; request '{}' left to the others", request.id());
    }
  }

  private void attempt(Breadcrumb request, String key, boolean look) {
    if (closed) {
      return;
    }
    Runnable again = () -> {
      watching.remove(request.id());
      offer(request, key, true);
    };
    if (!look && !members.first(key)) { // another runner tries it now; this one looks only if no response came within a lease
      watching.computeIfAbsent(request.id(), id -> later(lease, again));
      return;
    }
    Leases.Held held;
    try {
      Leases.Attempt taken = leases.attempt(store, claims, key, owner, lease);
      if (taken.held() == null) {
        // a key completed without a response (a call waiting for approval, an answered request the start-up sweep found) is left;
        // a held one's holder may die: look again when its lease runs out (a lease later when it was just given back), unless
        // its response arrives first
        if (!taken.found().completed()) {
          Instant until = taken.found().heldUntil();
          watching.put(request.id(), until != null ? timers.at(until, again) : later(lease, again));
        }
        return;
      }
      held = taken.held();
    } catch (RuntimeException e) {
      LOG.warn("could not claim tool request '{}' ({}); trying again in {} ms", request.id(), e.getMessage(), lease.toMillis());
      later(lease, () -> offer(request, key, true));
      return;
    }
    try {
      if (held.claim().token() > maxAttempts) {
        refuse.refuse(
            request, answeredBy,
            "it was taken by runners " + (held.claim().token() - 1) + " times and none of them answered it (each died, hung past its"
                + " lease or could not record); it is not run again. Look at the tool's code and the runners' logs, then ask again");
      } else {
        held.check(); // a runner stalled since it claimed the request runs nothing: another has it by now
        run.accept(request, answeredBy);
      }
      held.complete();
    } catch (dev.rcrt.core.ClaimLostException lost) {
      LOG.warn("tool request '{}' was not run here: {}", request.id(), lost.getMessage());
    } catch (Throwable e) { // the chain contains what tools throw; this is the store failing, or an Error of the runner's own
      LOG.warn("tool request '{}' could not be answered: {}", request.id(), e.toString());
      held.release();
      Throwables.rethrowIfFatal(e);
    } finally {
      held.stop(); // (closing the runner stops it too: its leases stop every claim they renew)
    }
  }

  private TimeSource.Timer later(Duration delay, Runnable task) {
    return timers.after(delay, task);
  }

  /** A response to a request another runner holds: no need to look at it again. */
  private void onResponse(BreadcrumbEvent event) {
    String requestId = event.breadcrumb().contextText("request_id");
    TimeSource.Timer pending = requestId == null ? null : watching.remove(requestId);
    if (pending != null) {
      pending.cancel();
    }
  }
}
