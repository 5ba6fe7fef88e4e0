package dev.rcrt.tools.internal.chain;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.Principal;
import dev.rcrt.core.Selector;
import dev.rcrt.core.TimeSource;
import dev.rcrt.core.ValidationException;
import dev.rcrt.tools.ApprovalHandler;
import dev.rcrt.tools.SecretResolver;
import dev.rcrt.tools.ToolCallOptions;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolDiscovery;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolEventListener;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolExchange;
import dev.rcrt.tools.ToolHandler;
import dev.rcrt.tools.ToolInterceptor;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolTrustPolicy;
import dev.rcrt.tools.internal.SecretValues;
import dev.rcrt.tools.internal.loader.ToolLoader;
import dev.rcrt.tools.internal.trust.ToolConfigs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The one way a tool runs: the record step around the chain of links {@code resolve →
 * [application interceptors] → trust → approval → validate → scrub → [runtime interceptors] →
 * invoke}. Recording happens here and nowhere else: the request (unless it is already stored),
 * then the response, with the listeners told at start and end. Thread-safe.
 */
public final class ExecutionChain {
  /** Who writes responses. */
  public static final String WRITER = "tools-runner";
  /** The tag of requests a runner runs itself; listeners leave them alone. */
  public static final String DIRECT_TAG = "dispatch:direct";

  private final BreadcrumbStore store;
  private final ToolTrustPolicy policy;
  private final List<ToolInterceptor> links;
  private final Listeners listeners;
  private final Duration defaultTimeout;
  private final TimeSource time;
  /** Every secret value this runner resolved, in every form it produced: never recorded. */
  private final SecretValues known = new SecretValues();

  /** The settings of a chain, from the runner's builder. */
  public record Settings(
      BreadcrumbStore store, ToolDiscovery discovery, ToolLoader loader, ToolTrustPolicy policy,
      SecretResolver secrets, Duration defaultTimeout, @Nullable ApprovalHandler approval,
      Predicate<ToolDefinition> approvalPolicy, Duration approvalExpiry, Set<Principal> approvers,
      List<ToolInterceptor> application, List<ToolInterceptor> runtime, List<ToolEventListener> listeners, long maxOutputBytes,
      TimeSource time, JavaToolThreads javaThreads) {}

  public ExecutionChain(Settings s) {
    this.store = s.store();
    this.policy = s.policy();
    this.listeners = new Listeners(s.listeners());
    this.defaultTimeout = s.defaultTimeout();
    this.time = s.time();
    List<ToolInterceptor> all = new ArrayList<>();
    all.add(new ResolveLink(s.store(), s.discovery(), listeners));
    all.addAll(s.application());
    all.add(new TrustLink(s.policy(), listeners));
    all.add(new ApprovalLink(s.approval(), s.approvalPolicy(), listeners,
        new ApprovalLink.Records(s.store(), s.time(), s.approvalExpiry(), Set.copyOf(s.approvers()), known)));
    all.add(new ValidateLink(s.loader(), listeners, s.maxOutputBytes()));
    all.add(new ScrubLink(new ToolConfigs(s.store(), s.policy()), s.secrets(), known, s.time()));
    all.addAll(s.runtime());
    all.add(new InvokeLink(s.store(), s.policy(), s.javaThreads(), listeners));
    this.links = List.copyOf(all);
  }

  /** Records the request (tagged {@link #DIRECT_TAG}), runs it, records and returns the response. */
  public ToolResponse call(ToolRequest request, ToolCallOptions options) {
    return record(
        new CallState(time, request, options.caller(), options.tags(), null, options.tool(), null, 0, options.handler(), options.exchange()),
        options.claim());
  }

  /**
   * Runs a stored {@code tool.request.v1} as its writer asked and records the response. A request
   * that already has a response (denied, or run by another runner) is not run again: that response
   * is returned.
   */
  public ToolResponse run(Breadcrumb stored) {
    return run(stored, List.of());
  }

  /** {@link #run(Breadcrumb)}, with {@code extraTags} on the response (such as the runner that answered). */
  public ToolResponse run(Breadcrumb stored, List<String> extraTags) {
    return rerun(stored, extraTags, null, null, ToolExchange.none());
  }

  /** {@link #run(Breadcrumb)}, with {@code exchange} as the call's way back to its caller. */
  public ToolResponse run(Breadcrumb stored, ToolExchange exchange) {
    return rerun(stored, List.of(), null, null, exchange);
  }

  /**
   * Runs a stored request again with the caller's own pinned {@code tool} and its {@code handler}
   * (a specialist agent, whose code is no record), for the request's writer, and records the
   * response, unless it is answered already.
   */
  public ToolResponse run(Breadcrumb stored, ToolDefinition tool, ToolHandler handler) {
    return rerun(stored, List.of(), tool, handler, ToolExchange.none());
  }

  /**
   * Runs a stored request for its writer, pinned to {@code tool} when the caller gives one (else to
   * the tool the request names), unless it is answered already; a malformed request is answered
   * {@code tool_input_invalid}.
   */
  private ToolResponse rerun(
      Breadcrumb stored, List<String> extraTags, @Nullable ToolDefinition tool, @Nullable ToolHandler handler, ToolExchange exchange) {
    List<String> sessionTags = responseTags(stored, extraTags);
    ToolRequest request;
    try {
      request = ToolRequest.fromBreadcrumb(stored);
    } catch (ValidationException malformed) {
      return answer(stored, sessionTags, stored.id(), new ToolException(ToolErrorCode.TOOL_INPUT_INVALID, malformed.getMessage()));
    }
    ToolResponse earlier = earlierAnswer(request.requestId());
    if (earlier != null) {
      return earlier;
    }
    String pinnedId = tool != null ? null : stored.contextText("tool_id");
    long pinnedVersion = tool != null ? 0 : stored.context().path("tool_version").asLong(0);
    return record(
        new CallState(
            time, request, Principal.writerOf(stored), sessionTags, stored, tool, pinnedId, pinnedVersion, handler, exchange),
        null);
  }

  /**
   * Answers a stored request with an error response without running it (a poison request that
   * runners kept dying on, a request nobody answered in time), unless it is answered already.
   *
   * @return the response that answers the request: the earlier one, or the error recorded now
   */
  public ToolResponse fail(Breadcrumb stored, List<String> extraTags, ToolErrorCode code, String why) {
    String requestId;
    try {
      requestId = ToolRequest.fromBreadcrumb(stored).requestId();
    } catch (ValidationException malformed) {
      requestId = stored.id();
    }
    ToolResponse earlier = earlierAnswer(requestId);
    return earlier != null ? earlier
        : answer(stored, responseTags(stored, extraTags), requestId, new ToolException(code, "tool '" + toolOf(stored) + "' was not run: " + why));
  }

  private static List<String> responseTags(Breadcrumb stored, List<String> extraTags) {
    List<String> tags = conversationTags(stored.tags());
    tags.addAll(extraTags);
    return tags;
  }

  private ToolResponse answer(Breadcrumb stored, List<String> tags, String requestId, ToolException error) {
    ToolResponse r = ToolResponse.failure(requestId, toolOf(stored), error, 0);
    store.create(r.toBreadcrumb(tags, WRITER));
    return r;
  }

  /** The tool a stored request names, or {@code (none)} for a malformed one. */
  private static String toolOf(Breadcrumb stored) {
    return Objects.requireNonNullElse(stored.contextText("tool"), "(none)");
  }

  private @Nullable ToolResponse earlierAnswer(String requestId) {
    for (Breadcrumb answer : store.search(Selector.schema(ToolResponse.SCHEMA).withAllTags("request:" + requestId), 10, 0)) {
      if (ToolResponse.writtenByARunner(answer, policy)) {
        return ToolResponse.fromBreadcrumb(answer);
      }
    }
    return null;
  }

  /**
   * Stores the request (unless a listener runs a stored one), then tells the listeners {@code
   * callStart}, runs the chain and records the response; {@code callEnd} follows {@code callStart}
   * whatever happens, a store failure while recording included. A fatal error the tool or a link
   * threw is rethrown only after that bookkeeping. With a {@code claim}, the request is written
   * fenced by it: a caller that lost its claim gets a {@link dev.rcrt.core.ClaimLostException} and
   * nothing runs.
   */
  private ToolResponse record(CallState call, dev.rcrt.core.spi.Leases.@Nullable Held claim) {
    ToolRequest request = call.request;
    if (call.stored == null) {
      List<String> tags = new ArrayList<>(call.tags);
      tags.add(DIRECT_TAG);
      // a model that echoes a key it saw into tool arguments must not get it recorded; the tool still gets its input
      JsonNode input = known.scrub(request.input());
      ToolRequest recorded = input == request.input() ? request : request.withInput(input);
      BreadcrumbCreate write = recorded.toBreadcrumb(tags, call.caller, call.pinned);
      if (claim != null) {
        claim.create(write);
      } else {
        store.create(write);
      }
    }
    listeners.callStart(request);
    ToolResponse response = null;
    try {
      response = new RealToolChain(links, 0, call, defaultTimeout, known).proceed(request);
      if (ToolErrorCode.TOOL_APPROVAL_PENDING.is(response.errorCode()) || ToolErrorCode.TOOL_WAITING.is(response.errorCode())) {
        return response; // not an answer: the request stays open until a decision or its next run (callEnd still follows)
      }
      if (!response.success()) {
        if (ToolErrorCode.TOOL_CAPABILITY_DENIED.is(response.errorCode()) && call.tool != null) {
          listeners.callDenied(request, call.tool, ToolErrorCode.TOOL_CAPABILITY_DENIED.code());
        }
        listeners.callFailed(request, response);
      }
      store.create(withRefusedWrites(response.toBreadcrumb(call.tags, WRITER), call));
    } finally {
      listeners.callEnd(request, response != null ? response
          : call.failure(new ToolException(ToolErrorCode.TOOL_FAILED, "tool '" + request.tool() + "': the call ended without a response")));
    }
    if (call.fatal != null) {
      throw call.fatal;
    }
    return response;
  }

  /**
   * The tags of {@code tags} that place a call's records in their conversation ({@code session:}
   * and {@code run:}), which every record a call leads to carries; a new, modifiable list.
   */
  static List<String> conversationTags(List<String> tags) {
    return new ArrayList<>(tags.stream().filter(t -> t.startsWith("session:") || t.startsWith("run:")).toList());
  }

  /**
   * The response record with {@code refused_writes}, the writes the tool's store view refused
   * during the call (an optional field at the end of RCRT's {@code tool.response.v1} context), so
   * the trail shows an attempt the tool caught and went on from.
   */
  private static BreadcrumbCreate withRefusedWrites(BreadcrumbCreate response, CallState call) {
    List<String> refused = call.scope == null ? List.of() : call.scope.refusedWrites();
    if (refused.isEmpty()) {
      return response;
    }
    com.fasterxml.jackson.databind.node.ObjectNode context = ((com.fasterxml.jackson.databind.node.ObjectNode) response.context()).deepCopy();
    refused.forEach(context.putArray("refused_writes")::add);
    return response.withContext(context);
  }

  /** Adds values the runner must treat as secrets from now on (a model client's key), in every form it knows. */
  public void addSecretValue(String value) {
    known.add(value);
  }

  /** {@code text} without any secret value this runner knows. */
  public String scrub(String text) {
    return known.scrub(text);
  }

  /** The runner's secret values, for a {@link dev.rcrt.tools.StreamScrubber}. */
  public SecretValues secretValues() {
    return known;
  }

  /** {@code json} without any secret value this runner knows; the same node when nothing in it is secret. */
  public JsonNode scrub(JsonNode json) {
    return known.scrub(json);
  }
}
