package dev.rcrt.agent.internal.loop;

import dev.rcrt.agent.AgentResponse;
import dev.rcrt.agent.Run;
import dev.rcrt.agent.UserMessage;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.llm.ChatMessage;
import dev.rcrt.llm.ToolCall;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A session's conversation, rebuilt from its breadcrumbs exactly as the provider saw it: user
 * messages, the agent's answers, and its tool calls as an assistant {@code tool_calls} message
 * (with the function names the model used, not the tool names) followed by one {@code role: tool}
 * message per call, grouped by the round recorded on each {@code tool.request.v1}. Calls the model
 * wrote as text (the text protocol) come back as that text and a {@code Tool results:} user message.
 *
 * <p>Truncation to a budget drops whole units, oldest first: a user message, an answer, or an
 * assistant {@code tool_calls} message together with its results, so no call or result is ever
 * left without its partner.
 */
public final class SessionMemory {
  private SessionMemory() {}

  /** One unit of memory: messages that are kept or dropped together. */
  record Unit(List<ChatMessage> messages) {}

  /**
   * The session's messages before {@code trigger}, oldest first, at most {@code limit} messages.
   */
  public static List<ChatMessage> before(BreadcrumbStore store, Breadcrumb trigger, String session, int limit) {
    List<Breadcrumb> newestFirst = store.search(Selector.allTags("session:" + session), 1000, 0);
    List<Breadcrumb> earlier = new ArrayList<>();
    boolean passedTrigger = trigger.tagValue("session:").isEmpty();
    for (Breadcrumb b : newestFirst) {
      if (b.id().equals(trigger.id())) {
        passedTrigger = true;
      } else if (passedTrigger) {
        earlier.add(b);
      }
    }
    Collections.reverse(earlier);
    return truncate(units(earlier), limit);
  }

  static List<Unit> units(List<Breadcrumb> oldestFirst) {
    Map<String, ToolResponse> responses = new LinkedHashMap<>();
    for (Breadcrumb b : oldestFirst) {
      if (ToolResponse.SCHEMA.equals(b.schemaName())) {
        ToolResponse r = ToolResponse.fromBreadcrumb(b);
        responses.put(r.requestId(), r);
      }
    }
    List<Unit> units = new ArrayList<>();
    Map<String, List<ToolRequest>> rounds = new LinkedHashMap<>();
    for (Breadcrumb b : oldestFirst) {
      String schema = String.valueOf(b.schemaName());
      if (schema.equals(UserMessage.SCHEMA) && b.contextText("content") != null) {
        flush(rounds, responses, units);
        units.add(new Unit(List.of(ChatMessage.user(b.contextText("content")))));
      } else if (schema.equals(AgentResponse.SCHEMA) && b.contextText("message") != null && !Run.isRound(b)) {
        flush(rounds, responses, units);
        units.add(new Unit(List.of(ChatMessage.assistant(b.contextText("message"), List.of()))));
      } else if (schema.equals(ToolRequest.SCHEMA)) {
        ToolRequest r = ToolRequest.fromBreadcrumb(b);
        if (r.modelCall() != null && responses.containsKey(r.requestId())) {
          rounds.computeIfAbsent(r.modelCall().round(), k -> new ArrayList<>()).add(r);
        }
      }
    }
    flush(rounds, responses, units);
    return units;
  }

  private static void flush(Map<String, List<ToolRequest>> rounds, Map<String, ToolResponse> responses, List<Unit> units) {
    for (List<ToolRequest> round : rounds.values()) {
      List<ToolCall> calls = new ArrayList<>();
      List<String> results = new ArrayList<>();
      for (ToolRequest r : round) {
        ToolRequest.ModelCall call = Objects.requireNonNull(r.modelCall());
        calls.add(new ToolCall(call.toolCallId(), call.functionName(), RcrtJson.write(r.input())));
        results.add(ToolResults.text(Objects.requireNonNull(responses.get(r.requestId())))); // only answered requests join a round
      }
      List<ChatMessage> messages = new ArrayList<>();
      if (TextToolCalls.isWritten(calls.get(0))) {
        messages.add(ChatMessage.assistant(TextToolCalls.written(calls), List.of()));
        messages.add(ChatMessage.user(TextToolCalls.results(calls, results)));
      } else {
        messages.add(ChatMessage.assistant(null, calls));
        for (int i = 0; i < calls.size(); i++) {
          messages.add(ChatMessage.tool(calls.get(i).id(), results.get(i)));
        }
      }
      units.add(new Unit(messages));
    }
    rounds.clear();
  }

  /** The newest units that fit in {@code limit} messages, oldest first; never half a unit. */
  static List<ChatMessage> truncate(List<Unit> units, int limit) {
    List<ChatMessage> out = new ArrayList<>();
    int used = 0;
    int first = units.size();
    for (int i = units.size() - 1; i >= 0; i--) {
      int size = units.get(i).messages().size();
      if (used + size > limit) {
        break;
      }
      used += size;
      first = i;
    }
    for (Unit u : units.subList(first, units.size())) {
      out.addAll(u.messages());
    }
    return out;
  }
}
