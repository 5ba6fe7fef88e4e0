package dev.rcrt.llm;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.okJson;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.junit5.WireMockExtension;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A refusal, a filtered answer and a cut-off answer are outcomes of their own, streamed or not,
 * read from bodies shaped as the OpenAI chat-completions reference shows them.
 */
class ModelOutcomesTest {
  @RegisterExtension
  static WireMockExtension server = WireMockExtension.newInstance().options(wireMockConfig().dynamicPort()).build();

  private OpenAiCompatibleLlmClient client() {
    return OpenAiCompatibleLlmClient.builder(server.baseUrl() + "/v1").apiKey("k").build();
  }

  private static ChatRequest request() {
    return ChatRequest.of("gpt-4o-2024-08-06", List.of(ChatMessage.user("hi")));
  }

  private static void json(String body) {
    server.stubFor(post(urlEqualTo("/v1/chat/completions")).willReturn(okJson(body)));
  }

  private static void sse(String body) {
    server.stubFor(post(urlEqualTo("/v1/chat/completions"))
        .willReturn(aResponse().withHeader("Content-Type", "text/event-stream").withBody(body)));
  }

  private static String completion(String message, String finishReason) {
    return """
        {"id": "chatcmpl-123", "object": "chat.completion", "created": 1677652288, "model": "gpt-4o-2024-08-06",
         "choices": [{"index": 0, "message": %s, "logprobs": null, "finish_reason": "%s"}],
         "usage": {"prompt_tokens": 9, "completion_tokens": 12, "total_tokens": 21}}
        """.formatted(message, finishReason);
  }

  private static String chunk(String delta, String finishReason) {
    return "data: {\"id\":\"chatcmpl-123\",\"object\":\"chat.completion.chunk\",\"created\":1694268190,\"model\":\"gpt-4o-2024-08-06\","
        + "\"choices\":[{\"index\":0,\"delta\":" + delta + ",\"logprobs\":null,\"finish_reason\":" + finishReason + "}]}\n\n";
  }

  @Test
  void aRefusalIsRefusedWithItsTextStreamedOrNot() {
    json(completion("{\"role\": \"assistant\", \"content\": null, \"refusal\": \"I'm sorry, I cannot assist with that request.\"}", "stop"));
    ChatResponse plain = client().chat(request());
    assertThat(plain.outcome()).isEqualTo(ChatResponse.Outcome.REFUSED);
    assertThat(plain.refusal()).isEqualTo("I'm sorry, I cannot assist with that request.");

    sse(chunk("{\"role\":\"assistant\",\"content\":null,\"refusal\":\"\"}", "null") + chunk("{\"refusal\":\"I'm sorry, \"}", "null")
        + chunk("{\"refusal\":\"I cannot assist with that request.\"}", "null") + chunk("{}", "\"stop\"") + "data: [DONE]\n\n");
    List<String> tokens = new ArrayList<>();
    ChatResponse streamed = client().chat(request(), tokens::add);
    assertThat(streamed.outcome()).isEqualTo(ChatResponse.Outcome.REFUSED);
    assertThat(streamed.refusal()).isEqualTo("I'm sorry, I cannot assist with that request.");
    assertThat(tokens).as("a refusal is not the answer's text").isEmpty();
  }

  @Test
  void aFilteredAnswerIsContentFilteredStreamedOrNot() {
    json(completion("{\"role\": \"assistant\", \"content\": \"Here is how\"}", "content_filter"));
    assertThat(client().chat(request()).outcome()).isEqualTo(ChatResponse.Outcome.CONTENT_FILTERED);

    sse(chunk("{\"role\":\"assistant\",\"content\":\"Here is how\"}", "null") + chunk("{}", "\"content_filter\"") + "data: [DONE]\n\n");
    assertThat(client().chat(request(), t -> {}).outcome()).isEqualTo(ChatResponse.Outcome.CONTENT_FILTERED);
  }

  @Test
  void anAnswerCutOffAtTheTokenLimitIsTruncatedTextAndToolCallAlike() {
    json(completion("{\"role\": \"assistant\", \"content\": \"The three largest cities are Tokyo, Del\"}", "length"));
    ChatResponse text = client().chat(request());
    assertThat(text.outcome()).isEqualTo(ChatResponse.Outcome.TRUNCATED);
    assertThat(text.message().content()).isEqualTo("The three largest cities are Tokyo, Del");

    sse(chunk("{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"index\":0,\"id\":\"call_abc\",\"type\":\"function\","
        + "\"function\":{\"name\":\"wire-money\",\"arguments\":\"\"}}]}", "null")
        + chunk("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"to\\\": \\\"bob\\\", \\\"amo\"}}]}", "null")
        + chunk("{}", "\"length\"") + "data: [DONE]\n\n");
    ChatResponse call = client().chat(request(), t -> {});
    assertThat(call.outcome()).isEqualTo(ChatResponse.Outcome.TRUNCATED);
    assertThat(call.message().toolCalls()).singleElement().satisfies(c -> assertThat(c.arguments()).isEqualTo("{\"to\": \"bob\", \"amo"));
  }

  @Test
  void aFinishedAnswerIsComplete() {
    json(completion("{\"role\": \"assistant\", \"content\": \"Hello!\", \"refusal\": null}", "stop"));
    ChatResponse done = client().chat(request());
    assertThat(done.outcome()).isEqualTo(ChatResponse.Outcome.COMPLETE);
    assertThat(done.refusal()).isNull();
  }
}
