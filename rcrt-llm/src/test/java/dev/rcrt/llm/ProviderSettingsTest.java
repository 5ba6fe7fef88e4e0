package dev.rcrt.llm;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.absent;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.equalToJson;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.junit5.WireMockExtension;
import dev.rcrt.core.RcrtJson;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The settings README documents per provider, each against the quirk that provider has. */
class ProviderSettingsTest {
  @RegisterExtension
  static WireMockExtension server = WireMockExtension.newInstance().options(wireMockConfig().dynamicPort()).build();

  private static final String KEY = "azure-key-0123456789";
  private static final String ANSWER =
      "{\"model\":\"gpt-4o\",\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"hi\"},\"finish_reason\":\"stop\"}],"
          + "\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":1,\"total_tokens\":6}}";

  private static void answerAt(String path, String body) {
    server.stubFor(post(urlPathEqualTo(path)).willReturn(aResponse().withHeader("Content-Type", "application/json").withBody(body)));
  }

  private static ChatRequest hello() {
    return ChatRequest.of("gpt-4o", List.of(ChatMessage.user("hello")));
  }

  @Test
  void azureSendsTheApiKeyHeaderAndTheApiVersionQueryAndNoBearer() {
    answerAt("/openai/deployments/gpt4o/chat/completions", ANSWER);
    var azure = OpenAiCompatibleLlmClient.builder(server.baseUrl() + "/openai/deployments/gpt4o")
        .header("api-key", KEY).queryParameter("api-version", "2024-10-21").build();

    ChatResponse response = azure.chat(hello());

    assertThat(response.message().content()).isEqualTo("hi");
    assertThat(response.usage()).isEqualTo(new ChatResponse.Usage(5, 1, 6));
    server.verify(postRequestedFor(urlEqualTo("/openai/deployments/gpt4o/chat/completions?api-version=2024-10-21"))
        .withHeader("api-key", equalTo(KEY))
        .withHeader("Authorization", absent()));
    assertThat(azure.toString()).doesNotContain(KEY).doesNotContain("api-version");
  }

  @Test
  void aProviderThatEchoesAHeaderSecretNeverGetsItIntoTheError() {
    server.stubFor(post(urlPathEqualTo("/openai/deployments/d/chat/completions")).willReturn(aResponse().withStatus(401)
        .withHeader("Content-Type", "application/json").withBody("{\"error\":{\"message\":\"Access denied: key " + KEY + " is invalid\"}}")));
    var azure = OpenAiCompatibleLlmClient.builder(server.baseUrl() + "/openai/deployments/d?api-version=2024-10-21")
        .header("api-key", KEY).maxRetries(0).build();

    assertThatThrownBy(() -> azure.chat(hello()))
        .isInstanceOfSatisfying(LlmException.class, e -> {
          assertThat(e.status()).isEqualTo(401);
          assertThat(e.getMessage()).contains("[secret]").doesNotContain(KEY).doesNotContain("api-version");
          assertThat(e.providerMessage()).doesNotContain(KEY);
        });
  }

  @Test
  void ollamaNeedsNoKeyAndGetsNoAuthorizationHeader() {
    answerAt("/v1/chat/completions", ANSWER);
    var ollama = OpenAiCompatibleLlmClient.builder(server.baseUrl() + "/v1").apiKey("").build();

    assertThat(ollama.chat(hello()).message().content()).isEqualTo("hi");
    server.verify(postRequestedFor(urlEqualTo("/v1/chat/completions")).withHeader("Authorization", absent()));
    assertThat(ollama.toString()).endsWith(", no key]");
  }

  @Test
  void openRouterGetsItsAttributionHeadersAndTheBearerKey() {
    answerAt("/api/v1/chat/completions", ANSWER);
    var openRouter = OpenAiCompatibleLlmClient.builder(server.baseUrl() + "/api/v1").apiKey("sk-or-v1-abcdefgh")
        .header("HTTP-Referer", "https://example.com/app").header("X-Title", "My App").build();

    openRouter.chat(hello());

    server.verify(postRequestedFor(urlEqualTo("/api/v1/chat/completions"))
        .withHeader("Authorization", equalTo("Bearer sk-or-v1-abcdefgh"))
        .withHeader("HTTP-Referer", equalTo("https://example.com/app"))
        .withHeader("X-Title", equalTo("My App")));
  }

  @Test
  void vllmAndLmStudioToolArgumentsSentAsAnObjectAreReadAsJson() {
    answerAt("/v1/chat/completions", """
        {"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[
          {"id":"c1","type":"function","function":{"name":"calculator","arguments":{"expression":"17*23"}}}]},
          "finish_reason":"tool_calls"}]}""");
    var local = OpenAiCompatibleLlmClient.builder(server.baseUrl() + "/v1").apiKey("lm-studio").build();

    ToolCall call = local.chat(hello()).message().toolCalls().get(0);

    assertThat(RcrtJson.parse(call.arguments()).get("expression").asText()).isEqualTo("17*23");
  }

  @Test
  void everyRequestOptionIsSentUnderItsChatCompletionsName() {
    answerAt("/v1/chat/completions", ANSWER);
    var tools = RcrtJson.array();
    tools.add(RcrtJson.parse("{\"type\":\"function\",\"function\":{\"name\":\"calculator\",\"parameters\":{\"type\":\"object\"}}}"));
    ChatOptions options = ChatOptions.builder()
        .temperature(0.0).maxTokens(256).toolChoiceFunction("calculator").parallelToolCalls(false).seed(42L)
        .stop(List.of("END")).jsonSchema("answer", RcrtJson.parse("{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}}}"))
        .build();

    OpenAiCompatibleLlmClient.builder(server.baseUrl() + "/v1").build()
        .chat(ChatRequest.of("gpt-4o", List.of(ChatMessage.user("n?"))).withTools(tools).withOptions(options));

    server.verify(postRequestedFor(urlEqualTo("/v1/chat/completions")).withRequestBody(equalToJson("""
        {"model":"gpt-4o","temperature":0.0,"max_tokens":256,"seed":42,"stop":["END"],"parallel_tool_calls":false,
         "tool_choice":{"type":"function","function":{"name":"calculator"}},
         "response_format":{"type":"json_schema","json_schema":{"name":"answer","strict":true,
           "schema":{"type":"object","properties":{"n":{"type":"integer"}}}}}}
        """, true, true)));
  }

  @Test
  void toolChoiceIsLeftOutWhenNoToolsAreOfferedAsProvidersRefuseIt() {
    answerAt("/v1/chat/completions", ANSWER);
    ChatOptions options = ChatOptions.builder().toolChoice("required").parallelToolCalls(true).maxTokens(5).build();

    OpenAiCompatibleLlmClient.builder(server.baseUrl() + "/v1").build().chat(hello().withOptions(options));

    var sent = RcrtJson.parse(server.getAllServeEvents().get(0).getRequest().getBodyAsString());
    assertThat(sent.has("tool_choice")).isFalse();
    assertThat(sent.has("parallel_tool_calls")).isFalse();
    assertThat(sent.get("max_tokens").asInt()).isEqualTo(5);
  }

  @Test
  void imagesGoAsImageUrlContentPartsAfterTheText() {
    answerAt("/v1/chat/completions", ANSWER);
    var message = ChatMessage.user("What is in this picture?", List.of(
        ChatMessage.Image.url("https://example.com/cat.png"), ChatMessage.Image.bytes(new byte[] {1, 2, 3}, "image/png")));

    OpenAiCompatibleLlmClient.builder(server.baseUrl() + "/v1").build().chat(ChatRequest.of("gpt-4o", List.of(message)));

    server.verify(postRequestedFor(urlEqualTo("/v1/chat/completions")).withRequestBody(equalToJson("""
        {"messages":[{"role":"user","content":[
          {"type":"text","text":"What is in this picture?"},
          {"type":"image_url","image_url":{"url":"https://example.com/cat.png"}},
          {"type":"image_url","image_url":{"url":"data:image/png;base64,AQID"}}]}]}
        """, false, true)));
  }

  @Test
  void badOptionsAndImagesAreRefusedWhenBuilt() {
    assertThatThrownBy(() -> ChatOptions.builder().temperature(3.0).build()).hasMessageContaining("between 0 and 2");
    assertThatThrownBy(() -> ChatOptions.builder().maxTokens(0).build()).hasMessageContaining("at least 1");
    assertThatThrownBy(() -> ChatMessage.Image.url("file:///etc/passwd")).hasMessageContaining("http(s) or a data:image/");
    assertThatThrownBy(() -> new ChatMessage("assistant", "x", List.of(), null, List.of(ChatMessage.Image.url("https://a/b.png"))))
        .hasMessageContaining("only user messages carry images");
    assertThatThrownBy(() -> OpenAiCompatibleLlmClient.builder("https://api.openai.com/v1").header("Content-Type", "text/plain"))
        .hasMessageContaining("cannot be replaced");
  }

  @Test
  void aHostClientWithAProxyIsUsedForTheRequest() {
    answerAt("/v1/chat/completions", ANSWER);
    HttpClient viaProxy = HttpClient.newBuilder()
        .proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", server.getPort())))
        .version(HttpClient.Version.HTTP_1_1).build();
    var client = OpenAiCompatibleLlmClient.builder("http://api.provider.invalid/v1").httpClient(viaProxy).build();

    assertThat(client.chat(hello()).message().content()).isEqualTo("hi");
    server.verify(postRequestedFor(urlEqualTo("/v1/chat/completions")).withHeader("Host", equalTo("api.provider.invalid")));
  }
}
