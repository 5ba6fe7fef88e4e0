package dev.rcrt.tools.loader;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.equalToJson;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.http.Fault;
import com.github.tomakehurst.wiremock.junit5.WireMockExtension;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.testing.TestClock;
import dev.rcrt.tools.SecretResolver;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import dev.rcrt.tools.testing.ToolHarness;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class HttpToolTest {
  @RegisterExtension
  static WireMockExtension server = WireMockExtension.newInstance().options(wireMockConfig().dynamicPort()).build();

  private static final String TOKEN = "tok-ABCDEF-123456";
  private final TestClock clock = new TestClock();
  private final ToolHarness h =
      new ToolHarness(b -> b.timeSource(clock).secretResolver(SecretResolver.environment(Map.of("WEATHER_API_KEY", TOKEN, "BASIC_PASS", "pw-XYZ-7890"))));

  @AfterEach
  void close() {
    h.close();
  }

  private void weatherTool(String extraImplementation, String extraContext) {
    h.define("tool.v1", """
        {"name":"weather","implementation":{"type":"http","endpoint":"%s/weather","auth":{"type":"bearer","secret":"secret:weather-api-key"}%s},
         "definition":{"inputSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},
                       "outputSchema":{"type":"object","properties":{"temp":{"type":"number"}},"required":["temp"]}}%s}
        """.formatted(server.baseUrl(), extraImplementation, extraContext));
  }

  private static void answer(int status, String contentType, String body) {
    server.stubFor(post(urlEqualTo("/weather")).willReturn(aResponse().withStatus(status).withHeader("Content-Type", contentType).withBody(body)));
  }

  @Test
  void theInputIsPostedWithTheBearerSecretAndTheJsonAnswerIsTheOutput() {
    answer(200, "application/json", "{\"temp\":21.5}");
    weatherTool("", "");
    ToolResponse r = h.call("weather", "{\"city\":\"Tokyo\"}");

    assertThat(r.error()).isNull();
    assertThat(r.output().get("temp").asDouble()).isEqualTo(21.5);
    server.verify(postRequestedFor(urlEqualTo("/weather"))
        .withHeader("Authorization", equalTo("Bearer " + TOKEN))
        .withHeader("Content-Type", equalTo("application/json"))
        .withRequestBody(equalToJson("{\"city\":\"Tokyo\"}")));
    assertThat(h.everything()).doesNotContain(TOKEN);
  }

  @Test
  void basicAuthAndSecretHeadersAreResolvedAtCallTime() {
    answer(200, "application/json; charset=utf-8", "{\"temp\":1}");
    h.define("tool.v1", """
        {"name":"basic","implementation":{"type":"http","endpoint":"%s/weather","headers":{"X-Team":"rcrt","X-Key":"secret:WEATHER_API_KEY"},
          "auth":{"type":"basic","username":"svc","secret":"secret:BASIC_PASS"}}}
        """.formatted(server.baseUrl()));
    assertThat(h.call("basic", "{}").success()).isTrue();
    server.verify(postRequestedFor(urlEqualTo("/weather"))
        .withHeader("Authorization", equalTo("Basic " + java.util.Base64.getEncoder().encodeToString("svc:pw-XYZ-7890".getBytes())))
        .withHeader("X-Key", equalTo(TOKEN))
        .withHeader("X-Team", equalTo("rcrt")));
  }

  @Test
  void getSendsTopLevelFieldsAsQueryParameters() {
    server.stubFor(get(urlPathEqualTo("/lookup")).willReturn(aResponse().withHeader("Content-Type", "application/json").withBody("{\"ok\":true}")));
    h.define("tool.v1", "{\"name\":\"lookup\",\"implementation\":{\"type\":\"http\",\"method\":\"GET\",\"endpoint\":\"" + server.baseUrl() + "/lookup\"}}");
    assertThat(h.call("lookup", "{\"q\":\"a b\",\"n\":2,\"nested\":{\"x\":1}}").success()).isTrue();
    server.verify(getRequestedFor(urlEqualTo("/lookup?q=a+b&n=2")));
  }

  @Test
  void a500IsAnErrorWithTheStatusAndABodyExcerpt() {
    answer(500, "text/plain", "upstream database on fire " + "x".repeat(500));
    weatherTool("", "");
    ToolResponse r = h.call("weather", "{\"city\":\"Oslo\"}");
    assertThat(r.errorCode()).isEqualTo("tool_failed");
    assertThat(r.error()).startsWith("tool 'weather' endpoint " + server.baseUrl() + "/weather answered HTTP 500: upstream database on fire").endsWith("…");
    assertThat(r.error().length()).isLessThan(400);
  }

  @Test
  void anErrorBodyThatEchoesTheSecretIsScrubbed() {
    answer(401, "application/json", "{\"error\":\"bad token " + TOKEN + "\"}");
    weatherTool("", "");
    ToolResponse r = h.call("weather", "{\"city\":\"Oslo\"}");
    assertThat(r.error()).contains("HTTP 401").contains("bad token [secret]").doesNotContain(TOKEN);
    assertThat(h.everything()).doesNotContain(TOKEN);
  }

  @Test
  void aResetConnectionIsAnErrorNamingTheEndpoint() {
    server.stubFor(post(urlEqualTo("/weather")).willReturn(aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER)));
    weatherTool("", "");
    ToolResponse r = h.call("weather", "{\"city\":\"Oslo\"}");
    assertThat(r.errorCode()).isEqualTo("tool_unreachable");
    assertThat(r.error()).startsWith("tool 'weather' could not reach " + server.baseUrl() + "/weather: ");
  }

  @Test
  void aSlowAnswerPastTheTimeoutIsATimeout() {
    server.stubFor(post(urlEqualTo("/weather")).willReturn(aResponse().withFixedDelay(5_000).withHeader("Content-Type", "application/json").withBody("{\"temp\":1}")));
    weatherTool("", ",\"capabilities\":{\"timeout\":300}");
    ToolResponse r = h.call("weather", "{\"city\":\"Oslo\"}");
    assertThat(r.errorCode()).isEqualTo("tool_timeout");
    assertThat(r.error()).startsWith("tool 'weather' timed out after 300 ms");
  }

  @Test
  void aBodySentSlowlyPastTheTimeoutIsATimeoutNotAWaitForTheWholeBody() {
    server.stubFor(post(urlEqualTo("/weather")).willReturn(aResponse().withHeader("Content-Type", "application/json")
        .withBody("{\"temp\":1, \"padding\":\"" + "x".repeat(200) + "\"}").withChunkedDribbleDelay(200, 20_000))); // headers with the first chunk after 100 ms, the rest takes 20 s
    weatherTool("", ",\"capabilities\":{\"timeout\":300}");
    ToolResponse r = h.call("weather", "{\"city\":\"Oslo\"}");
    assertThat(r.errorCode()).isEqualTo("tool_timeout");
    assertThat(r.error()).startsWith("tool 'weather' timed out after 300 ms").contains("no complete response within");
  }

  @Test
  void aBodyPastTheSizeLimitFailsWithoutBeingBufferedAndTheNextCallWorks() {
    answer(200, "application/json", "{\"temp\":1,\"blob\":\"" + "y".repeat(300_000) + "\"}");
    weatherTool("", ",\"limits\":{\"max_response_bytes\":100000}");
    ToolResponse r = h.call("weather", "{\"city\":\"Oslo\"}");
    assertThat(r.errorCode()).isEqualTo("tool_too_large");
    assertThat(r.error()).contains("answered more than 100000 bytes; nothing past the limit was read");

    answer(200, "application/json", "{\"temp\":3}");
    assertThat(h.call("weather", "{\"city\":\"Oslo\"}").output().get("temp").asInt()).isEqualTo(3);
  }

  @Test
  void onlyJsonMediaTypesAreReadAsJson() {
    weatherTool("", "");
    answer(200, "text/x-not-json-at-all", "{\"temp\":1}");
    assertThat(h.call("weather", "{\"city\":\"Oslo\"}").error()).contains("answered Content-Type 'text/x-not-json-at-all', expected application/json");
    answer(200, "application/problem+json; charset=utf-8", "{\"temp\":2}");
    assertThat(h.call("weather", "{\"city\":\"Oslo\"}").output().get("temp").asInt()).isEqualTo(2);
  }

  @Test
  void anEndpointEchoingTheBasicAuthorizationHeaderGetsItScrubbed() {
    server.stubFor(post(urlEqualTo("/echo")).willReturn(aResponse().withHeader("Content-Type", "application/json")
        .withBody("{\"you_sent\":\"{{request.headers.Authorization}}\"}").withTransformers("response-template")));
    h.define("tool.v1", """
        {"name":"echo-auth","implementation":{"type":"http","endpoint":"%s/echo","auth":{"type":"basic","username":"svc","secret":"secret:BASIC_PASS"}}}
        """.formatted(server.baseUrl()));
    ToolResponse r = h.call("echo-auth", "{}");
    assertThat(r.error()).isNull();
    assertThat(r.output().get("you_sent").asText()).isEqualTo("[secret]");
    String encoded = java.util.Base64.getEncoder().encodeToString("svc:pw-XYZ-7890".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    assertThat(h.everything()).doesNotContain(encoded).doesNotContain("pw-XYZ-7890");
  }

  @Test
  void aMalformedBodyIsAnError() {
    answer(200, "application/json", "{\"temp\": 21,");
    weatherTool("", "");
    assertThat(h.call("weather", "{\"city\":\"Oslo\"}").error()).contains("answered a body that is not valid JSON: Unexpected end-of-input").contains("{\"temp\": 21,");
  }

  @Test
  void theWrongContentTypeIsAnError() {
    answer(200, "text/html", "<html>login page</html>");
    weatherTool("", "");
    assertThat(h.call("weather", "{\"city\":\"Oslo\"}").error())
        .contains("answered Content-Type 'text/html', expected application/json: <html>login page</html>");
  }

  @Test
  void anAnswerThatBreaksTheOutputSchemaIsAnError() {
    answer(200, "application/json", "{\"temperature\":3}");
    weatherTool("", "");
    assertThat(h.call("weather", "{\"city\":\"Oslo\"}").error()).isEqualTo("tool 'weather' output: required key [temp] not found");
  }

  @Test
  void failuresAreRetriedOnlyWhenTheDefinitionAllowsItAfterAGrowingBackOffOnTheRunnersTime() {
    server.stubFor(post(urlEqualTo("/weather")).inScenario("flaky").whenScenarioStateIs(Scenario.STARTED)
        .willReturn(aResponse().withStatus(503)).willSetStateTo("recovered"));
    server.stubFor(post(urlEqualTo("/weather")).inScenario("flaky").whenScenarioStateIs("recovered")
        .willReturn(aResponse().withHeader("Content-Type", "application/json").withBody("{\"temp\":7}")));
    weatherTool("", "");
    assertThat(h.call("weather", "{\"city\":\"Oslo\"}").error()).contains("HTTP 503");

    server.resetScenarios();
    h.define("tool.v1", """
        {"name":"weather-retry","implementation":{"type":"http","endpoint":"%s/weather","retry":{"max_attempts":3,"backoff_ms":20000}},
         "limits":{"timeout_ms":120000}}
        """.formatted(server.baseUrl()));
    server.stubFor(post(urlEqualTo("/weather")).inScenario("flaky").whenScenarioStateIs(Scenario.STARTED)
        .willReturn(aResponse().withStatus(503)).willSetStateTo("still down"));
    server.stubFor(post(urlEqualTo("/weather")).inScenario("flaky").whenScenarioStateIs("still down")
        .willReturn(aResponse().withStatus(502)).willSetStateTo("recovered"));
    long before = clock.nanoTime();
    assertThat(h.call("weather-retry", "{}").output().get("temp").asInt()).isEqualTo(7);
    server.verify(4, postRequestedFor(urlEqualTo("/weather")));
    assertThat(Duration.ofNanos(clock.nanoTime() - before)).as("20 s, then 40 s, waited on the test clock").isEqualTo(Duration.ofSeconds(60));

    server.resetScenarios();
    h.define("tool.v1", """
        {"name":"weather-short","implementation":{"type":"http","endpoint":"%s/weather","retry":{"max_attempts":3,"backoff_ms":20000}},
         "limits":{"timeout_ms":30000}}
        """.formatted(server.baseUrl()));
    assertThat(h.call("weather-short", "{}").error()).as("no second back-off fits the time left").contains("HTTP 502");
  }

  @Test
  void aMissingSecretIsNamedAndNothingIsSent() {
    h.define("tool.v1", "{\"name\":\"nokey\",\"implementation\":{\"type\":\"http\",\"endpoint\":\"" + server.baseUrl() + "/weather\",\"auth\":{\"type\":\"bearer\",\"secret\":\"secret:nope\"}}}");
    ToolResponse r = h.call("nokey", "{}");
    assertThat(r.errorCode()).isEqualTo("tool_secret_missing");
    assertThat(r.error()).contains("needs secret 'nope'").contains("(NOPE)");
    server.verify(0, postRequestedFor(urlEqualTo("/weather")));
  }

  @Test
  void anEndpointThatIsNotHttpIsAnInvalidDefinition() {
    h.define("tool.v1", "{\"name\":\"ftp\",\"implementation\":{\"type\":\"http\",\"endpoint\":\"ftp://example.org/x\"}}");
    assertThat(h.call("ftp", "{}").error()).isEqualTo("tool 'ftp' implementation: endpoint must be an http or https URL with a host, found 'ftp://example.org/x'");
  }

  @Test
  void aHostHttpClientThatFollowsRedirectsIsRefusedAsItWouldSkipTheAddressCheck() {
    java.net.http.HttpClient following = java.net.http.HttpClient.newBuilder().followRedirects(java.net.http.HttpClient.Redirect.NORMAL).build();
    assertThatThrownBy(() -> ToolRunner.builder(new InMemoryBreadcrumbStore()).httpClient(following))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must not follow redirects");
  }
}
