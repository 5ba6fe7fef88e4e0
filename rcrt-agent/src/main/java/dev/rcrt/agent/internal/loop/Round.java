package dev.rcrt.agent.internal.loop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.agent.AgentResponse;
import dev.rcrt.agent.Run;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.Principal;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import dev.rcrt.core.spi.Records;
import dev.rcrt.llm.ChatMessage;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.ToolCall;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * One model round of a run that asked for tools, recorded as soon as the model answered and before
 * any call runs: an RCRT {@code agent.response.v1} carrying {@code tool_requests} (RCRT's own
 * agents write their tool calls this way, and its runners read them), with {@code status:
 * "tool_calls"}, tagged {@code agent:round} (not {@code agent:response} or {@code chat:output}: it
 * is not an answer) and the run's tag. Beside RCRT's fields it keeps what replaying the run needs:
 * {@code round}, {@code run_id}, {@code protocol}, the {@code assistant} message exactly as the
 * provider sent it, each call's {@code request_id} (derived from the run, so a resuming process
 * finds the requests already written) or the {@code error} the model is told instead, the model and
 * the round's usage. Written once per round (idempotency key {@code agent.round:<run>:<round>}).
 *
 * @param index 1 for the first round
 * @param assistant the model's message: text, and OpenAI {@code tool_calls} for the native protocol
 * @param protocol how the model asked for the calls
 * @param returnsToModel for the envelope protocol: whether the results go back to the model
 *     ({@code return_to_llm}); always true otherwise
 * @param calls the calls, in the model's order
 * @param model the model that answered, as it named itself, else as it was asked for
 * @param usage the round's token counts, or null when the provider reported none
 */
record Round(
    int index, ChatMessage assistant, Offer.Protocol protocol, boolean returnsToModel, List<Call> calls, @Nullable String model,
    ChatResponse.@Nullable Usage usage) {

  /**
   * One call of a round: a request to run, or a call refused before any request (unknown tool,
   * arguments that are not a JSON object).
   *
   * @param call the model's call
   * @param requestId the {@code tool.request.v1} that carries it out, or null when refused
   * @param tool the tool's name, or null when refused
   * @param error what the model is told instead of a result, or null
   * @param specialist whether the tool is an agent offered as a tool (its result is its answer's text)
   */
  record Call(ToolCall call, @Nullable String requestId, @Nullable String tool, @Nullable String error, boolean specialist) {}

  /**
   * The round's record for run {@code runId} of agent {@code agentId}, which record {@code
   * startedBy} started at {@code runStartedAt} (both kept on every round, for any process that
   * takes the run up).
   */
  BreadcrumbCreate toBreadcrumb(String agentId, String sessionId, String triggerId, String runId, String startedBy, Instant runStartedAt) {
    ObjectNode c = RcrtJson.object();
    c.put("message", assistant.content() == null ? "" : assistant.content());
    c.putObject("creator").put("type", "agent").put("agent_id", agentId);
    c.put("trigger_event_id", triggerId);
    c.put("timestamp", Records.timestamp());
    ArrayNode requests = c.putArray("tool_requests");
    for (Call call : calls) {
      if (call.requestId() != null) {
        ObjectNode request = requests.addObject().put("tool", call.tool());
        request.set("input", arguments(call.call()));
        request.put("requestId", call.requestId());
      }
    }
    c.put("agent_id", agentId);
    c.put("session_id", sessionId);
    c.put("trigger_id", triggerId);
    c.put("run_id", runId);
    c.put("started_by", startedBy);
    c.put("run_started_at", runStartedAt.toString());
    c.put("status", Run.ROUND_STATUS);
    c.put("round", index);
    c.put("protocol", protocol.name().toLowerCase(Locale.ROOT));
    c.put("returns_to_model", returnsToModel);
    c.put("model", model);
    if (usage != null) {
      c.putObject("usage").put("prompt_tokens", usage.promptTokens()).put("completion_tokens", usage.completionTokens())
          .put("total_tokens", usage.totalTokens());
    }
    ObjectNode a = c.putObject("assistant");
    a.put("content", assistant.content());
    ArrayNode toolCalls = a.putArray("tool_calls");
    assistant.toolCalls().forEach(t -> toolCalls.addObject().put("id", t.id()).put("name", t.name()).put("arguments", t.arguments()));
    ArrayNode list = c.putArray("calls");
    for (Call call : calls) {
      ObjectNode o = list.addObject()
          .put("tool_call_id", call.call().id()).put("function_name", call.call().name()).put("arguments", call.call().arguments());
      o.put("request_id", call.requestId()).put("tool", call.tool()).put("error", call.error()).put("specialist", call.specialist());
    }
    return BreadcrumbCreate.builder(AgentResponse.SCHEMA, "Agent round " + index)
        .context(c)
        .tags(Run.ROUND_TAG, "session:" + sessionId, RunIds.tag(runId))
        .createdBy(Principal.agent(agentId).wire())
        .idempotencyKey("agent.round:" + runId + ":" + index)
        .build();
  }

  /**
   * Adds the round to a conversation as the model saw it: the assistant message, then the results
   * (one {@code role: tool} message per call for native calls; one {@code Tool results:} user
   * message for calls written as text or in an envelope).
   *
   * @param results one per call, in call order
   */
  void appendTo(List<ChatMessage> messages, List<String> results) {
    List<ToolCall> asked = calls.stream().map(Call::call).toList();
    if (protocol == Offer.Protocol.NATIVE && !assistant.toolCalls().isEmpty()) {
      messages.add(assistant);
      for (int i = 0; i < asked.size(); i++) {
        messages.add(ChatMessage.tool(asked.get(i).id(), results.get(i)));
      }
    } else {
      messages.add(ChatMessage.assistant(assistant.content() == null ? "" : assistant.content(), List.of()));
      messages.add(ChatMessage.user(TextToolCalls.results(asked, results)));
    }
  }

  private static JsonNode arguments(ToolCall call) {
    try {
      return RcrtJson.parse(call.arguments().isBlank() ? "{}" : call.arguments());
    } catch (ValidationException e) {
      return RcrtJson.object();
    }
  }

  /**
   * Reads a round record.
   *
   * @throws ValidationException if it lacks what a replay needs
   */
  static Round fromBreadcrumb(Breadcrumb b) {
    JsonNode c = b.context();
    int index = c.path("round").asInt(0);
    if (index < 1) {
      throw new ValidationException("agent round '" + b.id() + "' context/round: a positive number is required");
    }
    List<ToolCall> toolCalls = new ArrayList<>();
    for (JsonNode t : c.path("assistant").path("tool_calls")) {
      toolCalls.add(new ToolCall(t.path("id").asText(), t.path("name").asText(), t.path("arguments").asText("{}")));
    }
    List<Call> calls = new ArrayList<>();
    for (JsonNode o : c.path("calls")) {
      calls.add(new Call(
          new ToolCall(o.path("tool_call_id").asText(), o.path("function_name").asText(), o.path("arguments").asText("{}")),
          o.path("request_id").textValue(), o.path("tool").textValue(), o.path("error").textValue(), o.path("specialist").asBoolean(false)));
    }
    JsonNode u = c.path("usage");
    Offer.Protocol protocol;
    try {
      protocol = Offer.Protocol.valueOf(c.path("protocol").asText("native").toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new ValidationException("agent round '" + b.id() + "' context/protocol: native, text or envelope, found " + c.path("protocol"));
    }
    return new Round(
        index, ChatMessage.assistant(c.path("assistant").path("content").textValue(), toolCalls), protocol,
        c.path("returns_to_model").asBoolean(true), calls, b.contextText("model"),
        u.isObject() ? new ChatResponse.Usage(u.path("prompt_tokens").asLong(), u.path("completion_tokens").asLong(), u.path("total_tokens").asLong()) : null);
  }
}
