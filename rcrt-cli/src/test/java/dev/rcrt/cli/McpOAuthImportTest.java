package dev.rcrt.cli;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.junit5.WireMockExtension;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An MCP server that requires OAuth, imported with {@code ./rcrt mcp import URL} and its tool called
 * from {@code ./rcrt chat} in another process: the official conformance suite's OAuth scenario
 * ({@code auth/metadata-default}) is the local authorization server and protected MCP server, and
 * runs {@code src/test/resources/mcp-oauth/import-then-chat} as its client.
 */
class McpOAuthImportTest {
  @RegisterExtension
  static WireMockExtension model = WireMockExtension.newInstance().options(wireMockConfig().dynamicPort()).build();

  @TempDir Path out;
  @TempDir Path tokens;

  @Test
  void anImportSignsInAndAChatInAnotherProcessCallsTheToolWithTheKeptTokens() throws Exception {
    model.stubFor(post(urlEqualTo("/v1/chat/completions")).inScenario("guarded").whenScenarioStateIs(Scenario.STARTED)
        .willReturn(aResponse().withHeader("Content-Type", "application/json").withBody("""
            {"id":"c1","model":"m","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
              "tool_calls":[{"id":"call_1","type":"function","function":{"name":"guarded_test-tool","arguments":"{}"}}]}}]}"""))
        .willSetStateTo("called"));
    model.stubFor(post(urlEqualTo("/v1/chat/completions")).inScenario("guarded").whenScenarioStateIs("called")
        .willReturn(aResponse().withHeader("Content-Type", "application/json").withBody("""
            {"id":"c2","model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"The guarded tool answered."}}]}""")));
    Path node = NodeTools.node();
    String cli = ProcessHandle.current().info().command().orElse("java") + " -cp " + System.getProperty("java.class.path") + " dev.rcrt.cli.Main";
    Path script = Path.of("src/test/resources/mcp-oauth/import-then-chat").toAbsolutePath();
    Files.setPosixFilePermissions(tokens, PosixFilePermissions.fromString("rwx------"));

    NodeTools.Result r = NodeTools.run(
        List.of(node.toString(), NodeTools.bin("conformance").toString(), "client", "--command", script.toString(), "--scenario",
            "auth/metadata-default", "--timeout", "180000"),
        Map.of("RCRT", cli, "OUT", out.toString(), "MODEL", model.baseUrl() + "/v1", "RCRT_OAUTH_DIR", tokens.toString()), 300);

    String log = r.output() + "\nimport: " + read("import.err") + "\nchat: " + read("chat.err");
    assertThat(r.output()).as(log).contains("OVERALL: PASSED").contains("valid-bearer-token");
    // the records name the sign-in, never a token; the tokens are in a file only the user reads
    String imported = read("imported.json");
    assertThat(imported).contains("\"oauth\"").contains("guarded.test-tool").doesNotContain("test-token").doesNotContain("access_token");
    List<Path> kept;
    try (Stream<Path> files = Files.list(tokens)) {
      kept = files.toList();
    }
    assertThat(kept).hasSize(1);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(kept.get(0)))).isEqualTo("rw-------");
    assertThat(Files.readString(kept.get(0))).contains("test-token");
    // the chat's process called the tool through the kept tokens: the model got its answer
    assertThat(read("chat.out")).as(log).contains("The guarded tool answered.");
    var asked = model.findAll(postRequestedFor(urlEqualTo("/v1/chat/completions")));
    assertThat(asked).hasSize(2);
    // the server's answer to the call ("test") came back as the tool's result, not an error
    assertThat(asked.get(1).getBodyAsString()).as(log).contains("{\"role\":\"tool\",\"content\":\"\\\"test\\\"\",\"tool_call_id\":\"call_1\"}")
        .doesNotContain("test-token");
    assertThat(read("chat.err") + read("import.err")).doesNotContain("test-token");
  }

  @Test
  void withoutATerminalAServerThatNeedsAPersonFailsAtOnceInOneLineSayingWhatToDo() throws Exception {
    com.sun.net.httpserver.HttpServer site = com.sun.net.httpserver.HttpServer.create(
        new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
    String base = "http://127.0.0.1:" + site.getAddress().getPort();
    site.createContext("/", exchange -> {
      String path = exchange.getRequestURI().getPath();
      String body = path.equals("/.well-known/oauth-protected-resource/mcp")
          ? "{\"resource\":\"" + base + "/mcp\",\"authorization_servers\":[\"" + base + "\"]}"
          : path.equals("/.well-known/oauth-authorization-server")
              ? "{\"issuer\":\"" + base + "\",\"authorization_endpoint\":\"" + base + "/authorize\",\"token_endpoint\":\"" + base
                  + "/token\",\"registration_endpoint\":\"" + base + "/register\",\"response_types_supported\":[\"code\"]}"
              : path.equals("/register") ? "{\"client_id\":\"c-1\"}" : "{\"error\":\"invalid_token\"}";
      int status = path.equals("/mcp") ? 401 : path.equals("/register") ? 201 : 200;
      if (status == 401) {
        exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer resource_metadata=\"" + base + "/.well-known/oauth-protected-resource/mcp\"");
      }
      byte[] bytes = body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(status, bytes.length);
      try (java.io.OutputStream o = exchange.getResponseBody()) {
        o.write(bytes);
      }
    });
    site.start();
    try {
      CliHarness tools = CliHarness.run(Map.of("RCRT_OAUTH_DIR", tokens.toString()), "", "mcp", "tools", base + "/mcp");
      assertThat(tools.status).as(tools.err()).isEqualTo(1);
      assertThat(tools.err().strip().lines()).as(tools.err()).anySatisfy(l -> assertThat(l).startsWith("rcrt: ")
          .contains("is not authorized").contains("nobody is at a terminal").contains("--authorize follow"));
      assertThat(tools.err()).doesNotContain("Exception").doesNotContain("\tat ");
    } finally {
      site.stop(0);
    }
  }

  private String read(String name) throws java.io.IOException {
    Path file = out.resolve(name);
    return Files.exists(file) ? Files.readString(file) : "";
  }
}
