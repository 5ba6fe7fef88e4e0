package dev.rcrt.testing;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.containing;
import static com.github.tomakehurst.wiremock.client.WireMock.notContaining;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.junit5.WireMockExtension;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.llm.OpenAiCompatibleLlmClient;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The OpenAI-compatible client passes the contract against a WireMock chat-completions endpoint. */
class OpenAiCompatibleLlmClientContractTest extends LlmClientContract {
  /** What the server does with each request it matched, before it answers: the running test's. */
  private static volatile Runnable received = () -> {};

  @RegisterExtension
  static WireMockExtension server = WireMockExtension.newInstance().options(wireMockConfig().dynamicPort()
      .extensions(new com.github.tomakehurst.wiremock.extension.ServeEventListener() {
        @Override
        public String getName() {
          return "contract-request-received";
        }

        @Override
        public void afterMatch(com.github.tomakehurst.wiremock.stubbing.ServeEvent event,
            com.github.tomakehurst.wiremock.extension.Parameters parameters) {
          received.run();
        }
      })).build();

  private static final String CALL =
      "{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"calculator\",\"arguments\":%s}}";

  @Override
  protected boolean reportsHangingCall() {
    return true;
  }

  @Override
  protected LlmClient client(Scenario scenario) {
    received = () -> {};
    switch (scenario) {
      case TEXT -> answer(json("{\"role\":\"assistant\",\"content\":\"391\"}", "stop"), sse(
          chunk("{\"role\":\"assistant\",\"content\":\"391\"}", null), chunk("{}", "stop")));
      case TOOL_CALL -> answer(
          json("{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[" + CALL.formatted("\"{\\\"expression\\\":\\\"17 * 23\\\"}\"") + "]}", "tool_calls"),
          sse(chunk("{\"role\":\"assistant\",\"tool_calls\":[" + CALL.formatted("\"{\\\"expression\\\":\"") + "]}", null),
              chunk("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"17 * 23\\\"}\"}}]}", null),
              chunk("{}", "tool_calls")));
      case STREAMED_TEXT -> answer(json("{\"role\":\"assistant\",\"content\":\"Hello, world\"}", "stop"), sse(
          chunk("{\"role\":\"assistant\",\"content\":\"Hello\"}", null), chunk("{\"content\":\", world\"}", null), chunk("{}", "stop")));
      case ERROR -> server.stubFor(post(urlEqualTo("/v1/chat/completions")).willReturn(aResponse().withStatus(400)
          .withHeader("Content-Type", "application/json")
          .withBody("{\"error\":{\"message\":\"Invalid value for 'messages'\",\"type\":\"invalid_request_error\"}}")));
      case HANG -> {
        received = this::hangingCallReceived; // told once the request is matched, before the stub's delay
        server.stubFor(post(urlEqualTo("/v1/chat/completions")).willReturn(aResponse().withFixedDelay(60_000)
            .withHeader("Content-Type", "application/json").withBody("{}")));
      }
    }
    return OpenAiCompatibleLlmClient.builder(server.baseUrl() + "/v1").apiKey("contract-key").maxRetries(0).build();
  }

  private static void answer(ResponseDefinitionBuilder whole, ResponseDefinitionBuilder streamed) {
    server.stubFor(post(urlEqualTo("/v1/chat/completions")).withRequestBody(notContaining("\"stream\":true")).willReturn(whole));
    server.stubFor(post(urlEqualTo("/v1/chat/completions")).withRequestBody(containing("\"stream\":true")).willReturn(streamed));
  }

  private static ResponseDefinitionBuilder json(String message, String finish) {
    return aResponse().withHeader("Content-Type", "application/json").withBody(
        "{\"model\":\"contract-model\",\"choices\":[{\"index\":0,\"message\":" + message + ",\"finish_reason\":\"" + finish + "\"}],"
            + "\"usage\":{\"prompt_tokens\":20,\"completion_tokens\":3,\"total_tokens\":23}}");
  }

  private static ResponseDefinitionBuilder sse(String... chunks) {
    StringBuilder body = new StringBuilder();
    for (String c : chunks) {
      body.append("data: ").append(c).append("\n\n");
    }
    body.append("data: [DONE]\n\n");
    return aResponse().withHeader("Content-Type", "text/event-stream").withBody(body.toString());
  }

  private static String chunk(String delta, String finish) {
    return "{\"model\":\"contract-model\",\"choices\":[{\"index\":0,\"delta\":" + delta + ",\"finish_reason\":"
        + (finish == null ? "null" : "\"" + finish + "\"") + "}]}";
  }
}
