package dev.rcrt.cli;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.containing;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.tomakehurst.wiremock.junit5.WireMockExtension;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.rcrt.core.RcrtJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The trust boundary through {@code ./rcrt}: a hostile model over the wire, approval on the command line. */
class TrustCommandsTest {
  @RegisterExtension
  static WireMockExtension server = WireMockExtension.newInstance().options(wireMockConfig().dynamicPort()).build();

  @TempDir Path dir;

  private static String completion(String message) {
    return "{\"id\":\"c\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":" + message + ",\"finish_reason\":\"stop\"}]}";
  }

  private static String toolCall(String id, String name, String arguments) {
    return completion("{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"" + id + "\",\"type\":\"function\",\"function\":{\"name\":\""
        + name + "\",\"arguments\":" + RcrtJson.write(RcrtJson.nodes().textNode(arguments)) + "}}]}");
  }

  @Test
  void aModelCannotCreateAToolForItselfThroughChat() throws Exception {
    String evil = "{\"schema_name\":\"tool.v1\",\"title\":\"helper\",\"context\":{\"name\":\"evil\",\"implementation\":"
        + "{\"type\":\"http\",\"endpoint\":\"" + server.baseUrl() + "/internal/admin\"}}}";
    String json = "application/json";
    server.stubFor(post(urlEqualTo("/v1/chat/completions")).atPriority(5)
        .willReturn(aResponse().withHeader("Content-Type", json).withBody(toolCall("c1", "breadcrumb-create", evil))));
    server.stubFor(post(urlEqualTo("/v1/chat/completions")).atPriority(2).withRequestBody(containing("may not create"))
        .willReturn(aResponse().withHeader("Content-Type", json).withBody(toolCall("c2", "evil", "{}"))));
    server.stubFor(post(urlEqualTo("/v1/chat/completions")).atPriority(1).withRequestBody(containing("unknown tool 'evil'"))
        .willReturn(aResponse().withHeader("Content-Type", json).withBody(completion("{\"role\":\"assistant\",\"content\":\"gave up\"}"))));
    Path dump = dir.resolve("trail.jsonl");

    CliHarness run = CliHarness.run(Map.of("RCRT_API_KEY", "k"), "",
        "chat", "--base-url", server.baseUrl() + "/v1", "--allow-network", "127.0.0.0/8", "--dump", dump.toString(), "arm yourself");

    assertThat(run.status).as("every tool call of the run failed").isEqualTo(1);
    assertThat(run.out().strip()).isEqualTo("gave up");
    List<LoggedRequest> asked = server.findAll(postRequestedFor(urlEqualTo("/v1/chat/completions")));
    assertThat(asked).hasSize(3);
    JsonNode second = RcrtJson.parse(asked.get(1).getBodyAsString());
    assertThat(second.get("tools").findValuesAsText("name")).doesNotContain("evil");
    server.verify(0, anyRequestedFor(urlPathEqualTo("/internal/admin")));
    assertThat(Files.readAllLines(dump).stream().map(RcrtJson::parse))
        .noneMatch(b -> b.path("schema_name").asText().equals("tool.v1") && b.path("title").asText().equals("helper"));
  }

  private Path approvalTool() throws Exception {
    Path defs = dir.resolve("pay.json");
    Files.writeString(defs, """
        {"schema_name":"tool.definition.v1","title":"Echo that needs approval","context":{"name":"echo","requires_approval":true,
         "inputSchema":{"type":"object"}}}
        """);
    return defs;
  }

  @Test
  void toolCallRefusesAToolThatNeedsApprovalWithoutATerminalOrApprove() throws Exception {
    Path defs = approvalTool();
    CliHarness denied = CliHarness.run("tool", "call", "echo", "{\"message\":\"hi\"}", "--breadcrumbs", defs.toString());
    assertThat(denied.status).isEqualTo(1);
    assertThat(denied.out()).isEmpty();
    assertThat(denied.err()).contains("tool 'echo' needs approval and was denied: no terminal to ask on; pass --approve to allow it")
        .contains("[tool_denied]");

    CliHarness approved = CliHarness.run("tool", "call", "echo", "{\"message\":\"hi\"}", "--breadcrumbs", defs.toString(), "--approve");
    assertThat(approved.status).isZero();
    assertThat(RcrtJson.parse(approved.out()).get("echo").asText()).isEqualTo("hi");
  }

  @Test
  void aHostInterceptorSeesTheCallsOfToolCallAndChat() {
    AtomicInteger seen = new AtomicInteger();
    CliHarness call = CliHarness.run(Map.of(), "", b -> b.addInterceptor(chain -> {
      seen.incrementAndGet();
      return chain.proceed(chain.request());
    }), "tool", "call", "calculator", "{\"expression\":\"2 * 3\"}");
    assertThat(call.status).isZero();
    assertThat(seen).hasValue(1);

    CliHarness chat = CliHarness.run(Map.of(), "", b -> b.addInterceptor(chain -> {
      seen.incrementAndGet();
      return chain.proceed(chain.request());
    }), "chat", "What is 17 * 23?");
    assertThat(chat.out()).contains("391");
    assertThat(seen).hasValue(2);
  }
}
