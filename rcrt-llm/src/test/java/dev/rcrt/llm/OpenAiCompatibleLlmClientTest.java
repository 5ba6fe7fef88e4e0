package dev.rcrt.llm;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.equalToJson;
import static com.github.tomakehurst.wiremock.client.WireMock.matchingJsonPath;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.http.Fault;
import com.github.tomakehurst.wiremock.junit5.WireMockExtension;
import dev.rcrt.core.RcrtJson;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class OpenAiCompatibleLlmClientTest {
  @RegisterExtension
  static WireMockExtension server = WireMockExtension.newInstance().options(wireMockConfig().dynamicPort()).build();

  private static final String KEY = "sk-test-very-secret-key";

  private OpenAiCompatibleLlmClient client() {
    return OpenAiCompatibleLlmClient.builder(server.baseUrl() + "/v1").apiKey(KEY).requestTimeout(Duration.ofSeconds(5)).maxRetries(0).build();
  }

  private static ChatRequest request() {
    var tools = RcrtJson.array();
    tools.add(RcrtJson.parse("{\"type\":\"function\",\"function\":{\"name\":\"calculator\",\"description\":\"math\",\"parameters\":{\"type\":\"object\",\"properties\":{\"expression\":{\"type\":\"string\"}},\"required\":[\"expression\"]}}}"));
    return new ChatRequest("gpt-4o-mini", List.of(ChatMessage.system("be brief"), ChatMessage.user("What is 17 * 23?")), tools, ChatOptions.builder().temperature(0.2).build());
  }

  private static void answer(int status, String body) {
    server.stubFor(post(urlEqualTo("/v1/chat/completions"))
        .willReturn(aResponse().withStatus(status).withHeader("Content-Type", "application/json").withBody(body)));
  }

  @Test
  void sendsTheChatCompletionsRequestWithBearerKeyAndTools() {
    answer(200, "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"391\"},\"finish_reason\":\"stop\"}]}");
    client().chat(request());
    server.verify(postRequestedFor(urlEqualTo("/v1/chat/completions"))
        .withHeader("Authorization", equalTo("Bearer " + KEY))
        .withHeader("Content-Type", equalTo("application/json"))
        .withRequestBody(equalToJson("""
            {"model":"gpt-4o-mini","temperature":0.2,
             "messages":[{"role":"system","content":"be brief"},{"role":"user","content":"What is 17 * 23?"}],
             "tools":[{"type":"function","function":{"name":"calculator","description":"math",
               "parameters":{"type":"object","properties":{"expression":{"type":"string"}},"required":["expression"]}}}]}
            """)));
  }

  @Test
  void readsNativeToolCallsWithNullContentAndStringArguments() {
    answer(200, """
        {"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,
          "tool_calls":[{"id":"call_abc123","type":"function","function":{"name":"calculator","arguments":"{\\"expression\\":\\"17 * 23\\"}"}}]},
          "finish_reason":"tool_calls"}],"usage":{"prompt_tokens":50,"completion_tokens":12,"total_tokens":62}}
        """);
    ChatResponse r = client().chat(request());
    assertThat(r.message().content()).isNull();
    assertThat(r.message().toolCalls()).containsExactly(new ToolCall("call_abc123", "calculator", "{\"expression\":\"17 * 23\"}"));
    assertThat(r.finishReason()).isEqualTo("tool_calls");
    assertThat(r.usage()).isEqualTo(new ChatResponse.Usage(50, 12, 62));
  }

  @Test
  void anAssistantToolCallMessageIsSentWithoutEmptyContentAndToolResultsCarryTheCallId() {
    answer(200, "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"391\"}}]}");
    var history = List.of(
        ChatMessage.user("What is 17 * 23?"),
        ChatMessage.assistant("", List.of(new ToolCall("call_1", "calculator", "{\"expression\":\"17*23\"}"))),
        ChatMessage.tool("call_1", "{\"result\":391}"));
    client().chat(ChatRequest.of("m", history));
    server.verify(postRequestedFor(urlEqualTo("/v1/chat/completions"))
        .withRequestBody(matchingJsonPath("$.messages[1].tool_calls[0].function.arguments", equalTo("{\"expression\":\"17*23\"}")))
        .withRequestBody(matchingJsonPath("$.messages[2].tool_call_id", equalTo("call_1")))
        .withRequestBody(matchingJsonPath("$.messages[2].role", equalTo("tool")))
        .withRequestBody(matchingJsonPath("$.messages[2].content", equalTo("{\"result\":391}"))));
    var sent = RcrtJson.parse(server.getAllServeEvents().get(0).getRequest().getBodyAsString());
    assertThat(sent.at("/messages/1").has("content")).as("empty content next to tool_calls is omitted").isFalse();
    assertThat(sent.has("tools")).as("no tools, no tools field").isFalse();
    assertThat(sent.has("temperature")).isFalse();
  }

  @Test
  void aProviderThatEchoesTheKeyInItsErrorNeverGetsItIntoTheException() {
    answer(401, "{\"error\":{\"message\":\"Incorrect API key provided: " + KEY + "\"}}");
    assertThatThrownBy(() -> client().chat(request()))
        .isInstanceOfSatisfying(LlmException.class, e -> {
          assertThat(e.getMessage()).contains("Incorrect API key provided: [secret]").doesNotContain(KEY);
          assertThat(e.providerMessage()).isEqualTo("Incorrect API key provided: [secret]");
        });
    answer(500, "upstream said: Bearer " + KEY);
    assertThatThrownBy(() -> client().chat(request())).satisfies(e -> assertThat(e.getMessage()).doesNotContain(KEY).contains("[secret]"));
  }

  @Test
  void aNon2xxStatusCarriesTheStatusAndTheProvidersMessage() {
    answer(401, "{\"error\":{\"message\":\"Incorrect API key provided\",\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\"}}");
    assertThatThrownBy(() -> client().chat(request()))
        .isInstanceOfSatisfying(LlmException.class, e -> {
          assertThat(e.code()).isEqualTo("llm_http_error");
          assertThat(e.status()).isEqualTo(401);
          assertThat(e.providerMessage()).isEqualTo("Incorrect API key provided");
          assertThat(e.isRetriable()).isFalse();
          assertThat(e.getMessage()).contains("HTTP 401: Incorrect API key provided (check the API key)").doesNotContain(KEY);
        });
  }

  @Test
  void rateLimitsAndServerErrorsAreRetriable() {
    answer(429, "{\"error\":{\"message\":\"Rate limit reached\"}}");
    assertThatThrownBy(() -> client().chat(request()))
        .isInstanceOfSatisfying(LlmException.class, e -> assertThat(e.isRetriable()).isTrue());
    answer(503, "<html>upstream down</html>");
    assertThatThrownBy(() -> client().chat(request()))
        .isInstanceOfSatisfying(LlmException.class, e -> {
          assertThat(e.status()).isEqualTo(503);
          assertThat(e.isRetriable()).isTrue();
          assertThat(e.getMessage()).contains("<html>upstream down</html>");
        });
  }

  @Test
  void anErrorObjectInA200AnswerIsAProviderError() {
    answer(200, "{\"error\":{\"message\":\"model overloaded\",\"code\":502}}");
    assertThatThrownBy(() -> client().chat(request()))
        .isInstanceOfSatisfying(LlmException.class, e -> {
          assertThat(e.code()).isEqualTo("llm_provider_error");
          assertThat(e.providerMessage()).isEqualTo("model overloaded");
        });
  }

  @Test
  void aBodyThatIsNotAChatCompletionIsABadResponse() {
    answer(200, "this is not json");
    assertThatThrownBy(() -> client().chat(request()))
        .isInstanceOfSatisfying(LlmException.class, e -> {
          assertThat(e.code()).isEqualTo("llm_bad_response");
          assertThat(e.getMessage()).contains("not JSON: this is not json");
        });
    answer(200, "{\"object\":\"list\",\"data\":[]}");
    assertThatThrownBy(() -> client().chat(request()))
        .isInstanceOfSatisfying(LlmException.class, e -> assertThat(e.getMessage()).contains("without choices[0].message"));
  }

  @Test
  void noAnswerWithinTheRequestTimeoutIsARetriableTimeout() {
    server.stubFor(post(urlEqualTo("/v1/chat/completions")).willReturn(aResponse().withFixedDelay(3000).withBody("{}")));
    var slow = OpenAiCompatibleLlmClient.builder(server.baseUrl() + "/v1").requestTimeout(Duration.ofMillis(200)).build();
    assertThatThrownBy(() -> slow.chat(request()))
        .isInstanceOfSatisfying(LlmException.class, e -> {
          assertThat(e.code()).isEqualTo("llm_timeout");
          assertThat(e.isRetriable()).isTrue();
          assertThat(e.getMessage()).contains("did not answer within 200 ms");
        });
  }

  @Test
  void aDroppedConnectionIsUnreachable() {
    server.stubFor(post(urlEqualTo("/v1/chat/completions")).willReturn(aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER)));
    assertThatThrownBy(() -> client().chat(request()))
        .isInstanceOfSatisfying(LlmException.class, e -> {
          assertThat(e.code()).isEqualTo("llm_unreachable");
          assertThat(e.getMessage()).doesNotContain(KEY);
        });
  }

  @Test
  void theKeyIsNotInToString() {
    assertThat(client().toString()).doesNotContain(KEY).contains("key set");
  }

  @Test
  void aBaseUrlThatAlreadyNamesTheEndpointIsKept() {
    assertThat(OpenAiCompatibleLlmClient.builder("http://localhost:11434/v1/chat/completions").build().endpoint())
        .hasToString("http://localhost:11434/v1/chat/completions");
    assertThat(OpenAiCompatibleLlmClient.builder("https://openrouter.ai/api/v1/").build().endpoint())
        .hasToString("https://openrouter.ai/api/v1/chat/completions");
  }
}
