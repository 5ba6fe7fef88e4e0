package dev.rcrt.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ImageContent;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ToolChoice;
import dev.langchain4j.model.chat.request.json.JsonEnumSchema;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonRawSchema;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.langchain4j.internal.Messages;
import dev.rcrt.llm.ChatMessage;
import dev.rcrt.llm.ChatOptions;
import dev.rcrt.llm.ChatRequest;
import dev.rcrt.llm.ToolCall;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What LangChain4j receives for an SDK request: every role, images, tool results named by their call, options and schemas. */
class MessagesTest {
  @Test
  void aConversationWithToolsAndOptionsArrivesWhole() {
    com.fasterxml.jackson.databind.node.ArrayNode tools = RcrtJson.array();
    tools.add(RcrtJson.parse("""
        {"type":"function","function":{"name":"unit_convert","description":"Converts units",
         "parameters":{"type":"object","properties":{"unit":{"type":"string","enum":["km","mi"],"description":"target"},
           "value":{"type":"number"},"either":{"anyOf":[{"type":"string"},{"type":"integer"}]}},"required":["value"]}}}"""));
    ChatRequest request = new ChatRequest("claude-x", List.of(
            ChatMessage.system("Be brief."),
            ChatMessage.user("What is this?", List.of(ChatMessage.Image.url("https://example.org/cat.png"))),
            ChatMessage.assistant(null, List.of(new ToolCall("call_7", "unit_convert", "{\"value\":3}"))),
            ChatMessage.tool("call_7", "{\"km\":4.8}")),
        tools,
        ChatOptions.builder().temperature(0.3).maxTokens(200).toolChoice("required").build());

    dev.langchain4j.model.chat.request.ChatRequest converted = Messages.toLangChain4j(request);

    assertThat(converted.messages()).hasSize(4);
    assertThat(converted.messages().get(0)).isInstanceOf(SystemMessage.class);
    UserMessage user = (UserMessage) converted.messages().get(1);
    assertThat(user.contents()).anyMatch(c -> c instanceof ImageContent);
    assertThat(((AiMessage) converted.messages().get(2)).toolExecutionRequests().get(0).id()).isEqualTo("call_7");
    ToolExecutionResultMessage result = (ToolExecutionResultMessage) converted.messages().get(3);
    assertThat(result.toolName()).isEqualTo("unit_convert");
    assertThat(result.text()).isEqualTo("{\"km\":4.8}");
    assertThat(converted.parameters().modelName()).isEqualTo("claude-x");
    assertThat(converted.parameters().temperature()).isEqualTo(0.3);
    assertThat(converted.parameters().maxOutputTokens()).isEqualTo(200);
    assertThat(converted.parameters().toolChoice()).isEqualTo(ToolChoice.REQUIRED);
    JsonObjectSchema parameters = converted.toolSpecifications().get(0).parameters();
    assertThat(parameters.required()).containsExactly("value");
    assertThat(((JsonEnumSchema) parameters.properties().get("unit")).enumValues()).containsExactly("km", "mi");
    assertThat(parameters.properties().get("either")).isInstanceOf(JsonRawSchema.class);
  }
}
