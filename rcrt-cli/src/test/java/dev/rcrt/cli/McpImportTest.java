package dev.rcrt.cli;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.tomakehurst.wiremock.junit5.WireMockExtension;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import dev.rcrt.core.RcrtJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reference MCP server, {@code @modelcontextprotocol/server-everything} (from the npm registry,
 * on Node 22), imported over stdio as tool records and called through {@code ./rcrt tool call} and
 * by an agent in {@code ./rcrt chat}.
 */
class McpImportTest {
  @RegisterExtension
  static WireMockExtension model = WireMockExtension.newInstance().options(wireMockConfig().dynamicPort()).build();

  @TempDir Path dir;

  private static String everything() {
    Path node = NodeTools.node();
    return node + " " + NodeTools.DIR.resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
  }

  private Path imported() throws Exception {
    CliHarness run = CliHarness.run("mcp", "import", "--command", everything(), "--alias", "everything");
    assertThat(run.status).as(run.err()).isZero();
    Path file = dir.resolve("everything.json");
    Files.writeString(file, run.out());
    return file;
  }

  @Test
  void aServersResourcesAndPromptsImportAsRecordsThatMcpServeServesAsTheServerDid() throws Exception {
    CliHarness run = CliHarness.run("mcp", "import", "--command", everything(), "--alias", "everything", "--resources", "--prompts");
    assertThat(run.status).as(run.err()).isZero();
    assertThat(run.err()).containsPattern("imported as everything\\.\\*, [1-9]\\d* resource\\(s\\), [1-9]\\d* prompt\\(s\\)");
    Path file = dir.resolve("catalog.json");
    Files.writeString(file, run.out());
    List<JsonNode> records = RcrtJson.convert(RcrtJson.parse(run.out()), new com.fasterxml.jackson.core.type.TypeReference<List<JsonNode>>() {});
    JsonNode architecture = records.stream().filter(r -> r.path("context").path("uri").asText().equals("demo://resource/static/document/architecture.md"))
        .findFirst().orElseThrow();
    assertThat(architecture.path("schema_name").asText()).isEqualTo("mcp.resource.v1");
    String text = architecture.path("context").path("text").asText();
    assertThat(text).isNotBlank();

    // served again by this SDK: the prompt fills its arguments where the server put them, the resource reads the same
    CliHarness serve = CliHarness.start(Map.of(), "mcp", "serve", "--http", "127.0.0.1:0", "--breadcrumbs", file.toString());
    try (dev.rcrt.mcp.McpClientSession session = dev.rcrt.mcp.McpClientSession.connect(
        dev.rcrt.mcp.McpServerAddress.url(McpConformanceTest.awaitUrl(serve)), java.time.Duration.ofSeconds(30), t -> {})) {
      var prompt = session.getPrompt("everything.args-prompt", Map.of("city", "Paris", "state", "Texas"));
      assertThat(((io.modelcontextprotocol.spec.McpSchema.TextContent) prompt.messages().get(0).content()).text())
          .isEqualTo("What's weather in Paris, Texas?");
      var read = session.readResource("demo://resource/static/document/architecture.md");
      assertThat(((io.modelcontextprotocol.spec.McpSchema.TextResourceContents) read.contents().get(0)).text()).isEqualTo(text);
    } finally {
      serve.stop();
    }
  }

  @Test
  void importedToolsAreRecordsOfTypeMcpAndRunThroughToolCall() throws Exception {
    Path records = imported();
    JsonNode all = RcrtJson.parse(Files.readString(records));
    JsonNode echo = null;
    for (JsonNode r : all) {
      if (r.path("context").path("name").asText().equals("everything.echo")) {
        echo = r;
      }
    }
    assertThat(echo).as("everything.echo among " + all.size() + " records").isNotNull();
    assertThat(echo.path("schema_name").asText()).isEqualTo("tool.v1");
    assertThat(echo.path("context").path("implementation").path("type").asText()).isEqualTo("mcp");
    assertThat(echo.path("context").path("implementation").path("tool").asText()).isEqualTo("echo");

    String node = NodeTools.node().toString();
    CliHarness call = CliHarness.run("tool", "call", "everything.echo", "{\"message\":\"hello over MCP\"}",
        "--breadcrumbs", records.toString(), "--allow-command", node);
    assertThat(call.status).as(call.err()).isZero();
    assertThat(call.out()).contains("hello over MCP");

    CliHarness sum = CliHarness.run("tool", "call", "everything.get-sum", "{\"a\":17,\"b\":23}",
        "--breadcrumbs", records.toString(), "--allow-command", node);
    assertThat(sum.status).as(sum.err()).isZero();
    assertThat(sum.out()).contains("40");

    CliHarness refused = CliHarness.run("tool", "call", "everything.echo", "{\"message\":\"x\"}", "--breadcrumbs", records.toString());
    assertThat(refused.status).isEqualTo(1);
    assertThat(refused.err()).contains("would start '" + node + "'").contains("--allow-command").contains("[tool_untrusted]");
  }

  @Test
  void anAgentCallsAnImportedToolAndTheTrailShowsIt() throws Exception {
    Path records = imported();
    model.stubFor(post(urlEqualTo("/v1/chat/completions")).inScenario("mcp").whenScenarioStateIs(Scenario.STARTED)
        .willReturn(aResponse().withHeader("Content-Type", "application/json").withBody("""
            {"id":"c1","model":"m","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
              "tool_calls":[{"id":"call_1","type":"function","function":{"name":"everything_get-sum","arguments":"{\\"a\\":17,\\"b\\":23}"}}]}}]}"""))
        .willSetStateTo("called"));
    model.stubFor(post(urlEqualTo("/v1/chat/completions")).inScenario("mcp").whenScenarioStateIs("called")
        .willReturn(aResponse().withHeader("Content-Type", "application/json").withBody("""
            {"id":"c2","model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"17 + 23 = 40"}}]}""")));
    Path trail = dir.resolve("trail.jsonl");
    CliHarness chat = CliHarness.run(Map.of(), "", "chat", "--breadcrumbs", records.toString(), "--allow-command", NodeTools.node().toString(),
        "--base-url", model.baseUrl() + "/v1", "--model", "m", "--dump", trail.toString(), "What is 17 + 23?");
    assertThat(chat.status).as(chat.err()).isZero();
    assertThat(chat.out()).contains("40");
    List<JsonNode> records2 = Files.readAllLines(trail).stream().map(RcrtJson::parse).toList();
    JsonNode request = records2.stream().filter(r -> r.path("schema_name").asText().equals("tool.request.v1")).findFirst().orElseThrow();
    assertThat(request.path("context").path("tool").asText()).isEqualTo("everything.get-sum");
    JsonNode response = records2.stream().filter(r -> r.path("schema_name").asText().equals("tool.response.v1")).findFirst().orElseThrow();
    assertThat(response.path("context").path("status").asText()).isEqualTo("success");
    assertThat(RcrtJson.write(response.path("context").path("output"))).contains("40");
  }

  @Test
  void aSuccessfulCallPrintsItsResultAndNothingElse() throws Exception {
    for (int run = 0; run < 2; run++) { // the noise came at close, most runs
      Path log = dir.resolve("call-" + run + ".log");
      Process p = TestJvm.start(List.of(), List.of("dev.rcrt.cli.Main", "mcp", "call", everything(), "echo", "{\"message\":\"hi\"}"), log);
      assertThat(p.waitFor()).as(Files.readString(log)).isZero();
      assertThat(Files.readString(log).strip()).isEqualTo("Echo: hi");
    }
  }
}
