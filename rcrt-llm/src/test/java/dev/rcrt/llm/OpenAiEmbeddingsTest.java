package dev.rcrt.llm;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.matchingJsonPath;
import static com.github.tomakehurst.wiremock.client.WireMock.okJson;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.junit5.WireMockExtension;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import dev.rcrt.core.EmbeddingErrorCode;
import dev.rcrt.core.EmbeddingException;
import dev.rcrt.core.EmbeddingProvider;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The embeddings API on a client's endpoint, against a WireMock server speaking OpenAI's format. */
class OpenAiEmbeddingsTest {
  @RegisterExtension
  static WireMockExtension server = WireMockExtension.newInstance().options(wireMockConfig().dynamicPort()).build();

  private static final String KEY = "sk-test-0123456789abcdef";

  private EmbeddingProvider embeddings(int dimensions) {
    return OpenAiCompatibleLlmClient.builder(server.baseUrl() + "/v1?api-version=7")
        .apiKey(KEY)
        .retryBackoff(Duration.ofMillis(1), Duration.ofMillis(2))
        .build()
        .embeddings("text-embedding-3-small", dimensions);
  }

  @Test
  void postsTheTextsWithTheKeyAndReadsTheVectorsByIndex() {
    server.stubFor(post(urlEqualTo("/v1/embeddings?api-version=7")).willReturn(okJson("""
        {"object":"list","model":"text-embedding-3-small","data":[
          {"object":"embedding","index":1,"embedding":[0.0,1.0,0.5]},
          {"object":"embedding","index":0,"embedding":[1.0,0.0,-0.5]}],
         "usage":{"prompt_tokens":4,"total_tokens":4}}""")));

    List<float[]> vectors = embeddings(3).embed(List.of("first", ""));

    assertThat(vectors.get(0)).containsExactly(1.0f, 0.0f, -0.5f);
    assertThat(vectors.get(1)).containsExactly(0.0f, 1.0f, 0.5f);
    server.verify(postRequestedFor(urlEqualTo("/v1/embeddings?api-version=7"))
        .withHeader("Authorization", equalTo("Bearer " + KEY))
        .withRequestBody(matchingJsonPath("$.model", equalTo("text-embedding-3-small")))
        .withRequestBody(matchingJsonPath("$.encoding_format", equalTo("float")))
        .withRequestBody(matchingJsonPath("$.input[0]", equalTo("first")))
        .withRequestBody(matchingJsonPath("$.input[1]", equalTo(" ")))
        .withRequestBody(matchingJsonPath("$.dimensions", equalTo("3"))));
  }

  @Test
  void aModelThatRefusesTheParameterIsAskedWithoutIt() {
    server.stubFor(post(urlEqualTo("/v1/embeddings")).willReturn(okJson("""
        {"object":"list","model":"text-embedding-ada-002","data":[{"object":"embedding","index":0,"embedding":[1.0,0.0]}],
         "usage":{"prompt_tokens":1,"total_tokens":1}}""")));
    EmbeddingProvider ada = OpenAiCompatibleLlmClient.builder(server.baseUrl() + "/v1").apiKey(KEY).build()
        .embeddings("text-embedding-ada-002", 2, false);

    assertThat(ada.embed(List.of("x")).get(0)).containsExactly(1.0f, 0.0f);
    server.verify(postRequestedFor(urlEqualTo("/v1/embeddings")).withRequestBody(matchingJsonPath("$.model", equalTo("text-embedding-ada-002")))
        .withRequestBody(com.github.tomakehurst.wiremock.client.WireMock.notContaining("dimensions")));
  }

  @Test
  void aRefusedKeyIsEmbeddingFailedAndTheEchoedKeyIsScrubbed() {
    server.stubFor(post(urlEqualTo("/v1/embeddings?api-version=7")).willReturn(aResponse().withStatus(401)
        .withHeader("Content-Type", "application/json")
        .withBody("{\"error\":{\"message\":\"Incorrect API key provided: " + KEY + "\"}}")));

    assertThatThrownBy(() -> embeddings(3).embed(List.of("x")))
        .isInstanceOfSatisfying(EmbeddingException.class, e -> {
          assertThat(e.errorCode()).isEqualTo(EmbeddingErrorCode.EMBEDDING_FAILED);
          assertThat(e.getMessage()).contains("HTTP 401", "check the API key", "text-embedding-3-small").doesNotContain(KEY);
        });
  }

  @Test
  void aServerErrorIsRetriedThenUnavailable() {
    server.stubFor(post(urlEqualTo("/v1/embeddings?api-version=7")).inScenario("s").whenScenarioStateIs(Scenario.STARTED)
        .willReturn(aResponse().withStatus(503)).willSetStateTo("up"));
    server.stubFor(post(urlEqualTo("/v1/embeddings?api-version=7")).inScenario("s").whenScenarioStateIs("up")
        .willReturn(okJson("{\"data\":[{\"index\":0,\"embedding\":[1,2]}]}")));
    assertThat(embeddings(2).embed(List.of("x")).get(0)).containsExactly(1f, 2f);

    server.resetAll();
    server.stubFor(post(urlEqualTo("/v1/embeddings?api-version=7")).willReturn(aResponse().withStatus(500)));
    assertThatThrownBy(() -> embeddings(2).embed(List.of("x")))
        .isInstanceOfSatisfying(EmbeddingException.class, e -> assertThat(e.errorCode()).isEqualTo(EmbeddingErrorCode.EMBEDDING_UNAVAILABLE));
  }

  @Test
  void unusableAnswersAreEmbeddingFailedAndSayWhy() {
    server.stubFor(post(urlEqualTo("/v1/embeddings?api-version=7")).willReturn(okJson("{\"data\":[{\"index\":0,\"embedding\":[1,2,3,4]}]}")));
    assertThatThrownBy(() -> embeddings(3).embed(List.of("x"))).hasMessageContaining("4 dimensions, 3 expected");

    server.stubFor(post(urlEqualTo("/v1/embeddings?api-version=7")).willReturn(okJson("{\"data\":[]}")));
    assertThatThrownBy(() -> embeddings(3).embed(List.of("x"))).hasMessageContaining("0 embeddings for 1 texts");

    server.stubFor(post(urlEqualTo("/v1/embeddings?api-version=7")).willReturn(okJson("{\"data\":[{\"index\":0,\"embedding\":[1,\"a\",3]}]}")));
    assertThatThrownBy(() -> embeddings(3).embed(List.of("x"))).hasMessageContaining("not a number");

    server.stubFor(post(urlEqualTo("/v1/embeddings?api-version=7")).willReturn(aResponse().withStatus(200).withHeader("Content-Type", "text/html").withBody("<html>")));
    assertThatThrownBy(() -> embeddings(3).embed(List.of("x")))
        .isInstanceOfSatisfying(EmbeddingException.class, e -> assertThat(e.errorCode()).isEqualTo(EmbeddingErrorCode.EMBEDDING_FAILED));
  }
}
