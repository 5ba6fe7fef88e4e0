package dev.rcrt.agent.internal.loop;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.AgentException;
import dev.rcrt.agent.AgentResponse;
import dev.rcrt.core.Principal;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import dev.rcrt.core.spi.Ids;
import dev.rcrt.core.spi.Throwables;
import dev.rcrt.llm.ToolCall;
import dev.rcrt.tools.ToolCallOptions;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;

/**
 * Dispatch: the calls of one answer, run concurrently on the turn's pool, each through the {@link
 * ToolRunner}'s chain (trust, approval, validation, the {@code tool.request.v1} / {@code
 * tool.response.v1} trail) as {@code agent:<agent_id>}, pinned to the tool version the model was
 * offered. Results come back in call order as the text the model reads; nothing here throws.
 * Thread-safe.
 */
final class CallDispatcher {
  /** Runs a specialist's own turn: a sub-session answered by another agent one level deeper. */
  @FunctionalInterface
  interface Specialists {
    AgentResponse ask(AgentDefinition specialist, String session, String message);
  }

  private final LoopSettings settings;
  private final AgentDefinition agent;
  private final ExecutorService pool;
  private final Specialists specialists;

  CallDispatcher(LoopSettings settings, AgentDefinition agent, ExecutorService pool, Specialists specialists) {
    this.settings = settings;
    this.agent = agent;
    this.pool = pool;
    this.specialists = specialists;
  }

  /** Runs the calls of one answer concurrently; results in call order, one per call. */
  List<String> run(List<ToolCall> calls, Offer offer, String session, String round) {
    if (calls.size() == 1) {
      return List.of(run(calls.get(0), offer, session, round));
    }
    List<Future<String>> running = new ArrayList<>();
    for (ToolCall call : calls) {
      running.add(pool.submit(settings.observer().carry(() -> run(call, offer, session, round))));
    }
    List<String> results = new ArrayList<>();
    for (int i = 0; i < calls.size(); i++) {
      try {
        results.add(running.get(i).get());
      } catch (ExecutionException e) {
        results.add("Error: the call to '" + calls.get(i).name() + "' failed: " + e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        results.add("Error: the call to '" + calls.get(i).name() + "' was interrupted.");
      }
    }
    return results;
  }

  /** One tool call → the text of the message that answers it. */
  private String run(ToolCall call, Offer offer, String session, String round) {
    Optional<String> name = offer.prompt().toolFor(call.name());
    if (name.isEmpty()) {
      return "Error: unknown tool '" + call.name() + "'. Available tools: "
          + String.join(", ", offer.prompt().functionToTool().keySet())
          + ". Call one of these, or answer without a tool.";
    }
    JsonNode input;
    try {
      input = RcrtJson.parse(call.arguments().isBlank() ? "{}" : call.arguments());
    } catch (ValidationException e) {
      return "Error: the arguments for '" + call.name() + "' are " + e.getMessage()
          + ". Call it again with a JSON object that matches its parameters.";
    }
    if (!input.isObject()) {
      return "Error: the arguments for '" + call.name() + "' must be a JSON object, found "
          + input.getNodeType().toString().toLowerCase(Locale.ROOT) + ".";
    }
    ToolDefinition tool = Objects.requireNonNull(offer.byName().get(name.get()), "offered tool"); // name came from the offer
    ToolRequest request =
        new ToolRequest(Ids.random(), tool.name(), input, agent.agentId(), new ToolRequest.ModelCall(call.id(), call.name(), round));
    ToolCallOptions options =
        ToolCallOptions.by(Principal.agent(agent.agentId())).withTags("session:" + session).withTool(tool);
    ToolRunner runner = settings.runner();
    if ("agent".equals(tool.implementation().type())) {
      ToolResponse answered = runner.call(request, options.withHandler((in, ctx) -> askSpecialist(tool, in, session)));
      return answered.success() ? answered.requireOutput().path("message").asText() : ToolResults.text(answered);
    }
    if (settings.eventMode()) {
      return awaitResponse(request, options);
    }
    return ToolResults.text(runner.call(request, options));
  }

  /** Event-driven mode: write the request and wait for a listening runner's response. */
  private String awaitResponse(ToolRequest request, ToolCallOptions options) {
    CompletableFuture<ToolResponse> answered = settings.runner().dispatch(request, options);
    try {
      return ToolResults.text(settings.time().orTimeout(answered, settings.responseTimeout()).get());
    } catch (InterruptedException e) {
      answered.cancel(false);
      Thread.currentThread().interrupt();
      return "Error: interrupted while waiting for '" + request.tool() + "'.";
    } catch (ExecutionException e) {
      if (e.getCause() instanceof TimeoutException) {
        answered.cancel(false);
        return "Error: no tool runner answered request " + request.requestId() + " for '" + request.tool() + "' within "
            + settings.responseTimeout().toMillis() + " ms; none may be listening on this store.";
      }
      return "Error: waiting for '" + request.tool() + "' failed: " + e.getCause();
    }
  }

  /**
   * The code behind a specialist offered as a tool: runs the specialist's own turn in a
   * sub-session within the specialist timeout, on the specialist threads so that the caller can
   * stop waiting at the timeout. Runs inside the tool chain (trust, approval, validation, recording).
   */
  private JsonNode askSpecialist(ToolDefinition tool, JsonNode input, String session) {
    AgentDefinition specialist;
    try {
      specialist = AgentDefinition.fromBreadcrumb(settings.runner().store().get(tool.sourceId()).orElseThrow());
    } catch (RuntimeException e) {
      throw new ToolException(ToolErrorCode.TOOL_NOT_FOUND, "agent '" + tool.name() + "' is no longer available");
    }
    String message = input.path("message").isTextual() ? input.get("message").asText() : RcrtJson.write(input);
    CompletableFuture<AgentResponse> answered = new CompletableFuture<>();
    // the deadline is set before the turn starts, so it is measured from here whatever the pool does
    CompletableFuture<AgentResponse> bounded = settings.time().orTimeout(answered, settings.specialistTimeout());
    Future<?> turn;
    try {
      turn = settings.threads().specialist(() -> {
        try {
          answered.complete(specialists.ask(specialist, session, message));
        } catch (Throwable t) {
          answered.completeExceptionally(t);
          Throwables.rethrowIfFatal(t);
        }
      });
    } catch (AgentException busy) {
      throw new ToolException(ToolErrorCode.TOOL_FAILED, "agent '" + tool.name() + "' was not asked: " + busy.getMessage());
    }
    try {
      return RcrtJson.object().put("message", bounded.get().message());
    } catch (ExecutionException e) {
      if (e.getCause() instanceof TimeoutException) {
        turn.cancel(true);
        throw new ToolException(
            ToolErrorCode.TOOL_TIMEOUT, "agent '" + tool.name() + "' did not answer within " + settings.specialistTimeout().toMillis() + " ms");
      }
      throw new ToolException(ToolErrorCode.TOOL_FAILED, "agent '" + tool.name() + "' failed: " + (e.getCause() == null ? e : e.getCause().getMessage()));
    } catch (InterruptedException e) {
      turn.cancel(true);
      Thread.currentThread().interrupt();
      throw new ToolException(ToolErrorCode.TOOL_FAILED, "interrupted while agent '" + tool.name() + "' was answering");
    }
  }
}
