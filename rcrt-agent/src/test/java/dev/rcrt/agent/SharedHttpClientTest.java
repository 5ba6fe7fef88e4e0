package dev.rcrt.agent;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.junit5.WireMockExtension;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.llm.ChatMessage;
import dev.rcrt.llm.ChatRequest;
import dev.rcrt.llm.OpenAiCompatibleLlmClient;
import dev.rcrt.tools.ToolRunner;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The README's embedding snippet run many times in one JVM must not leave HTTP threads behind. */
class SharedHttpClientTest {
  @RegisterExtension
  static WireMockExtension server = WireMockExtension.newInstance().options(wireMockConfig().dynamicPort()).build();

  @Test
  void buildingManyClientsAndRunnersStartsNoNewHttpThreads() {
    server.stubFor(post(urlPathEqualTo("/v1/chat/completions")).willReturn(aResponse().withHeader("Content-Type", "application/json")
        .withBody("{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}")));
    ChatRequest hello = ChatRequest.of("m", List.of(ChatMessage.user("hello")));
    OpenAiCompatibleLlmClient.builder(server.baseUrl() + "/v1").build().chat(hello);
    long before = selectorThreads();

    for (int i = 0; i < 100; i++) {
      try (ToolRunner runner = ToolRunner.builder(new InMemoryBreadcrumbStore()).build()) {
        OpenAiCompatibleLlmClient.builder(server.baseUrl() + "/v1").build().chat(hello);
      }
    }

    assertThat(selectorThreads()).isEqualTo(before);
  }

  private static long selectorThreads() {
    return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().contains("SelectorManager")).count();
  }
}
