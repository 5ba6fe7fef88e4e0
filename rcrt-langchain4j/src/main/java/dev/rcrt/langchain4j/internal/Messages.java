package dev.rcrt.langchain4j.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.ImageContent;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ResponseFormat;
import dev.langchain4j.model.chat.request.ToolChoice;
import dev.rcrt.llm.ChatMessage;
import dev.rcrt.llm.ChatOptions;
import dev.rcrt.llm.ChatRequest;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.ToolCall;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The SDK's chat request (OpenAI chat-completions terms) as a LangChain4j {@code ChatRequest}, and
 * LangChain4j's {@code ChatResponse} back: roles to message types, images to {@code ImageContent},
 * tool calls to {@code ToolExecutionRequest}s (a tool result names its tool, found from the call it
 * answers), OpenAI {@code tools} to {@code ToolSpecification}s, and the options LangChain4j has
 * (temperature, max tokens, stop, tool choice, JSON output).
 */
public final class Messages {
  private Messages() {}

  /** The LangChain4j request for {@code request}. */
  public static dev.langchain4j.model.chat.request.ChatRequest toLangChain4j(ChatRequest request) {
    List<dev.langchain4j.data.message.ChatMessage> messages = new ArrayList<>();
    Map<String, String> toolOfCall = new HashMap<>();
    for (ChatMessage m : request.messages()) {
      switch (m.role()) {
        case "system" -> messages.add(SystemMessage.from(m.content() == null ? "" : m.content()));
        case "user" -> messages.add(user(m));
        case "assistant" -> {
          List<ToolExecutionRequest> calls = new ArrayList<>();
          for (ToolCall c : m.toolCalls()) {
            toolOfCall.put(c.id(), c.name());
            calls.add(ToolExecutionRequest.builder().id(c.id()).name(c.name()).arguments(c.arguments()).build());
          }
          messages.add(calls.isEmpty() ? AiMessage.from(m.content() == null ? "" : m.content())
              : m.content() == null || m.content().isEmpty() ? AiMessage.from(calls) : AiMessage.from(m.content(), calls));
        }
        case "tool" -> messages.add(ToolExecutionResultMessage.from(
            m.toolCallId(), toolOfCall.getOrDefault(m.toolCallId(), ""), m.content() == null ? "" : m.content()));
        default -> throw new IllegalArgumentException("no LangChain4j message for role '" + m.role() + "'");
      }
    }
    dev.langchain4j.model.chat.request.ChatRequest.Builder b =
        dev.langchain4j.model.chat.request.ChatRequest.builder().messages(messages).modelName(request.model());
    List<ToolSpecification> tools = new ArrayList<>();
    for (JsonNode t : request.tools()) {
      JsonNode f = t.path("function");
      tools.add(ToolSpecification.builder().name(f.path("name").asText()).description(f.path("description").asText(null))
          .parameters(Schemas.parameters(f.path("parameters"))).build());
    }
    if (!tools.isEmpty()) {
      b.toolSpecifications(tools);
    }
    ChatOptions o = request.options();
    if (o.temperature() != null) {
      b.temperature(o.temperature());
    }
    if (o.maxTokens() != null) {
      b.maxOutputTokens(o.maxTokens());
    }
    if (!o.stop().isEmpty()) {
      b.stopSequences(o.stop());
    }
    if (o.toolChoice() != null && o.toolChoice().isTextual() && !tools.isEmpty()) {
      switch (o.toolChoice().asText().toLowerCase(Locale.ROOT)) {
        case "required" -> b.toolChoice(ToolChoice.REQUIRED);
        case "none" -> b.toolChoice(ToolChoice.NONE);
        default -> b.toolChoice(ToolChoice.AUTO);
      }
    }
    if (o.responseFormat() != null && o.responseFormat().path("type").asText().startsWith("json")) {
      b.responseFormat(ResponseFormat.JSON);
    }
    return b.build();
  }

  private static UserMessage user(ChatMessage m) {
    if (m.images().isEmpty()) {
      return UserMessage.from(m.content() == null ? "" : m.content());
    }
    List<Content> parts = new ArrayList<>();
    if (m.content() != null && !m.content().isEmpty()) {
      parts.add(TextContent.from(m.content()));
    }
    for (ChatMessage.Image image : m.images()) {
      parts.add(ImageContent.from(image.url()));
    }
    return UserMessage.from(parts);
  }

  /** The SDK's response for LangChain4j's {@code response}. */
  public static ChatResponse fromLangChain4j(dev.langchain4j.model.chat.response.ChatResponse response) {
    AiMessage ai = response.aiMessage();
    List<ToolCall> calls = new ArrayList<>();
    if (ai.hasToolExecutionRequests()) {
      int n = 0;
      for (ToolExecutionRequest r : ai.toolExecutionRequests()) {
        n++;
        String id = r.id() == null || r.id().isBlank() ? "call_" + n : r.id();
        calls.add(new ToolCall(id, r.name(), r.arguments() == null || r.arguments().isBlank() ? "{}" : r.arguments()));
      }
    }
    ChatResponse.Usage usage = null;
    if (response.tokenUsage() != null) {
      int in = response.tokenUsage().inputTokenCount() == null ? 0 : response.tokenUsage().inputTokenCount();
      int out = response.tokenUsage().outputTokenCount() == null ? 0 : response.tokenUsage().outputTokenCount();
      usage = new ChatResponse.Usage(in, out, in + out);
    }
    String finish = response.finishReason() == null ? null : switch (response.finishReason()) {
      case STOP -> "stop";
      case LENGTH -> "length";
      case TOOL_EXECUTION -> "tool_calls";
      case CONTENT_FILTER -> "content_filter";
      default -> response.finishReason().name().toLowerCase(Locale.ROOT);
    };
    return new ChatResponse(ChatMessage.assistant(ai.text(), calls), finish, usage, response.modelName());
  }
}
