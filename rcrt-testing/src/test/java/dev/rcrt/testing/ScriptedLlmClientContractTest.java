package dev.rcrt.testing;

import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.llm.LlmException;
import dev.rcrt.llm.ToolCall;
import java.util.concurrent.CountDownLatch;

/** The scripted model keeps the promises every client makes. */
class ScriptedLlmClientContractTest extends LlmClientContract {
  @Override
  protected boolean reportsHangingCall() {
    return true;
  }

  @Override
  protected LlmClient client(Scenario scenario) {
    return switch (scenario) {
      case TEXT -> ScriptedLlmClient.answering(r -> ChatResponse.text("391"));
      case TOOL_CALL -> ScriptedLlmClient.answering(r -> ChatResponse.toolCalls(new ToolCall("call_1", TOOL_NAME, "{\"expression\":\"17 * 23\"}")));
      case STREAMED_TEXT -> ScriptedLlmClient.answering(r -> ChatResponse.text("Hello, world"));
      case ERROR -> ScriptedLlmClient.answering(r -> {
        throw new LlmException("llm_http_error", "scripted refusal: the request is bad", 400, "bad request", false, null);
      });
      case HANG -> ScriptedLlmClient.answering(r -> {
        hangingCallReceived();
        try {
          new CountDownLatch(1).await();
          throw new AssertionError("unreachable");
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new LlmException("llm_cancelled", "interrupted while the script waited", 0, null, false, e);
        }
      });
    };
  }
}
