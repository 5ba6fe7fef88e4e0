package dev.rcrt.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.exception.HttpException;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.output.FinishReason;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.testing.LlmClientContract;

/**
 * {@link LangChain4jLlmClient} passes the SDK's model-client contract over LangChain4j's own
 * {@link ChatModel} and {@link StreamingChatModel} interfaces, with models scripted per scenario
 * (which check that the offered tool arrived as a {@code ToolSpecification}).
 */
class LangChain4jLlmClientContractTest extends LlmClientContract {

  @Override
  protected boolean reportsHangingCall() {
    return true;
  }

  ChatResponse answer(Scenario scenario, ChatRequest request) {
    if (request.toolSpecifications().stream().noneMatch(t -> t.name().equals(TOOL_NAME) && t.parameters().properties().containsKey("expression"))) {
      throw new IllegalStateException("the calculator tool did not arrive: " + request.toolSpecifications());
    }
    return switch (scenario) {
      case TEXT -> ChatResponse.builder().aiMessage(AiMessage.from("391")).finishReason(FinishReason.STOP).build();
      case STREAMED_TEXT -> ChatResponse.builder().aiMessage(AiMessage.from("Hello, world")).finishReason(FinishReason.STOP).build();
      case TOOL_CALL -> ChatResponse.builder()
          .aiMessage(AiMessage.from(ToolExecutionRequest.builder().id("call_1").name(TOOL_NAME).arguments("{\"expression\":\"17 * 23\"}").build()))
          .finishReason(FinishReason.TOOL_EXECUTION).build();
      case ERROR -> throw new HttpException(400, "{\"error\":{\"message\":\"messages: must not be empty\"}}");
      case HANG -> {
        hangingCallReceived();
        try {
          new java.util.concurrent.CountDownLatch(1).await(); // until interrupted
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        throw new IllegalStateException("interrupted");
      }
    };
  }

  @Override
  protected LlmClient client(Scenario scenario) {
    ChatModel model = new ChatModel() {
      @Override
      public ChatResponse doChat(ChatRequest request) {
        return answer(scenario, request);
      }
    };
    StreamingChatModel streaming = new StreamingChatModel() {
      @Override
      public void doChat(ChatRequest request, StreamingChatResponseHandler handler) {
        try {
          ChatResponse whole = answer(scenario, request);
          String text = whole.aiMessage().text();
          if (text != null && scenario == Scenario.STREAMED_TEXT) {
            handler.onPartialResponse(text.substring(0, 7));
            handler.onPartialResponse(text.substring(7));
          } else if (text != null) {
            handler.onPartialResponse(text);
          }
          handler.onCompleteResponse(whole);
        } catch (RuntimeException e) {
          handler.onError(e);
        }
      }
    };
    return LangChain4jLlmClient.of(model, streaming);
  }
}
