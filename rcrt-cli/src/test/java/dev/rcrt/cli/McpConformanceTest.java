package dev.rcrt.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The official MCP conformance suite ({@code @modelcontextprotocol/conformance}, run on Node 22)
 * against {@code ./rcrt mcp serve --http}, whose tools are breadcrumbs in a fixture
 * ({@code examples/mcp-conformance/breadcrumbs}: the tools {@code test_simple_text} and {@code
 * test_error_handling} the {@code test://} resources and the {@code test_*} prompts the scenarios read, as ordinary
 * records),
 * not special cases in the server. Each scenario's result is printed as a
 * table in the build log.
 */
class McpConformanceTest {
  static final List<String> SERVER_SCENARIOS =
      List.of("server-initialize", "ping", "tools-list", "tools-call-simple-text", "tools-call-error", "logging-set-level", "dns-rebinding-protection",
          "resources-list", "resources-read-text", "resources-read-binary", "resources-templates-read", "resources-subscribe",
          "resources-unsubscribe", "prompts-list", "prompts-get-simple", "prompts-get-with-args", "prompts-get-embedded-resource",
          "prompts-get-with-image", "completion-complete", "tools-call-image", "tools-call-audio", "tools-call-embedded-resource",
          "tools-call-mixed-content", "tools-call-with-logging", "tools-call-with-progress", "tools-call-sampling", "tools-call-elicitation",
          "elicitation-sep1034-defaults", "elicitation-sep1330-enums", "server-sse-multiple-streams", "server-sse-polling", "json-schema-2020-12");
  private static final Pattern RESULT = Pattern.compile("Passed: (\\d+)/(\\d+), (\\d+) failed");

  @Test
  void theServerPassesTheListedScenarios() throws Exception {
    Path node = NodeTools.node();
    CliHarness serve = CliHarness.start(Map.of(), "mcp", "serve", "--http", "127.0.0.1:0", "--sse-polling", "3s", "--breadcrumbs", "../examples/mcp-conformance/breadcrumbs");
    try {
      String url = awaitUrl(serve);
      Map<String, String> results = new LinkedHashMap<>();
      List<String> failures = new ArrayList<>();
      for (String scenario : SERVER_SCENARIOS) {
        NodeTools.Result r = NodeTools.run(
            List.of(node.toString(), NodeTools.bin("conformance").toString(), "server", "--url", url, "--scenario", scenario), Map.of(), 120);
        Matcher m = RESULT.matcher(r.output());
        boolean passed = r.exit() == 0 && m.find() && m.group(3).equals("0") && m.group(1).equals(m.group(2));
        results.put(scenario, passed ? "passed (" + m.group(1) + "/" + m.group(2) + " checks)" : "FAILED");
        if (!passed) {
          failures.add(scenario + ":\n" + r.output());
        }
      }
      print("server", results);
      assertThat(failures).as("failed scenarios").isEmpty();
    } finally {
      serve.stop();
    }
  }

  /** Every client scenario of the suite. */
  static final List<String> CLIENT_SCENARIOS = List.of("initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry",
      "auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3", "auth/basic-cimd",
      "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported", "auth/scope-omitted-when-undefined", "auth/scope-step-up",
      "auth/scope-retry-limit", "auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none",
      "auth/pre-registration", "auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback",
      "auth/resource-mismatch", "auth/offline-access-scope", "auth/offline-access-not-supported", "auth/client-credentials-jwt",
      "auth/client-credentials-basic", "auth/cross-app-access-complete-flow");

  /**
   * The client scenarios against {@code examples/mcp-conformance/client}, which drives the SDK's
   * client as {@code ./rcrt mcp} does (here the CLI of this build, through {@code RCRT}): the suite
   * starts its own server, appends its URL to the command and names the scenario in {@code
   * MCP_CONFORMANCE_SCENARIO}.
   */
  @Test
  void theClientPassesTheListedScenarios() throws Exception {
    Path node = NodeTools.node();
    String cli = ProcessHandle.current().info().command().orElse("java") + " -cp " + System.getProperty("java.class.path") + " dev.rcrt.cli.Main";
    String client = Path.of("../examples/mcp-conformance/client").toAbsolutePath().normalize().toString();
    Map<String, String> results = new LinkedHashMap<>();
    List<String> failures = new ArrayList<>();
    for (String scenario : CLIENT_SCENARIOS) {
      NodeTools.Result r = NodeTools.run(
          List.of(node.toString(), NodeTools.bin("conformance").toString(), "client", "--command", client, "--scenario", scenario,
              "--timeout", "120000"), Map.of("RCRT", cli), 240);
      Matcher m = RESULT.matcher(r.output());
      boolean passed = r.exit() == 0 && m.find() && m.group(3).equals("0") && m.group(1).equals(m.group(2));
      results.put(scenario, passed ? "passed (" + m.group(1) + "/" + m.group(2) + " checks)" : "FAILED");
      if (!passed) {
        failures.add(scenario + ":\n" + r.output());
      }
    }
    print("client", results);
    System.out.println("MCP conformance: " + (results.size() - failures.size()) + " of 26 client scenarios passed");
    assertThat(failures).as("failed scenarios").isEmpty();
  }

  static String awaitUrl(CliHarness serve) throws InterruptedException {
    Matcher m = serve.err.await(Pattern.compile("listening on (http://\\S+/mcp)"), Duration.ofSeconds(60)); // woken by each write
    if (m == null) {
      throw new AssertionError("mcp serve did not start: " + serve.err());
    }
    return m.group(1);
  }

  static void print(String side, Map<String, String> results) {
    StringBuilder table = new StringBuilder("MCP conformance (" + NodeTools.CONFORMANCE + "), " + side + " scenarios:\n");
    results.forEach((scenario, status) -> table.append(String.format("  %-40s %s%n", scenario, status)));
    System.out.print(table);
  }
}
