package dev.rcrt.tools.js;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.junit5.WireMockExtension;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.testing.ToolHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A JavaScript tool's {@code fetch} against a real HTTP server (WireMock): its hosts and its size cap. */
class JavaScriptFetchTest {
  @RegisterExtension
  static WireMockExtension server = WireMockExtension.newInstance().options(wireMockConfig().dynamicPort()).build();

  private final ToolHarness h = new ToolHarness();

  @AfterEach
  void close() {
    h.close();
  }

  @Test
  void aJavaScriptToolFetchesOnlyFromTheHostsItsPermissionsList() {
    server.stubFor(get(urlEqualTo("/data")).willReturn(aResponse().withHeader("Content-Type", "application/json").withBody("{\"v\":42}")));
    String hostPort = "localhost:" + server.getPort();
    h.store.create(BreadcrumbCreate.builder("tool.code.v1", "fetcher").context(RcrtJson.parse("""
        {"name":"fetcher","code":{"language":"javascript","source":"export async function execute(i) { const r = await fetch(i.url); return {status: r.status, v: (await r.json()).v}; }"},
         "permissions":{"net":["%s"]}}
        """.formatted(hostPort))).build());
    ToolResponse ok = h.call("fetcher", "{\"url\":\"" + server.baseUrl() + "/data\"}");
    assertThat(ok.error()).isNull();
    assertThat(RcrtJson.write(ok.output())).isEqualTo("{\"status\":200,\"v\":42}");

    ToolResponse refused = h.call("fetcher", "{\"url\":\"http://127.0.0.1:" + server.getPort() + "/data\"}");
    assertThat(refused.error()).contains("fetch to '127.0.0.1:" + server.getPort() + "' is not allowed").contains(hostPort);
  }

  @Test
  void aJavaScriptFetchPastItsSizeLimitIsAnErrorTheScriptSeesAndNothingMoreIsRead() {
    server.stubFor(get(urlEqualTo("/big")).willReturn(aResponse().withHeader("Content-Type", "application/json").withBody("\"" + "z".repeat(200_000) + "\"")));
    h.store.create(BreadcrumbCreate.builder("tool.code.v1", "fetcher").context(RcrtJson.parse("""
        {"name":"big-fetcher","code":{"language":"javascript","source":"export async function execute(i) { try { await fetch(i.url); return {read: true}; } catch (e) { return {error: String(e.message)}; } }"},
         "permissions":{"net":true},"limits":{"max_response_bytes":50000}}
        """)).build());
    ToolResponse r = h.call("big-fetcher", "{\"url\":\"" + server.baseUrl() + "/big\"}");
    assertThat(r.output().get("error").asText())
        .isEqualTo("fetch " + server.baseUrl() + "/big failed: the response body is larger than 50000 bytes (the tool's limits.max_response_bytes)");
  }
}
