package dev.rcrt.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.SecretResolver;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import dev.rcrt.tools.ToolTrustPolicy;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One SDK process serving its tools over MCP, another importing them as {@code mcp} tool records:
 * the import follows the server's tool list, calls authenticate with a header taken from a secret
 * at call time, and a server that goes away fails one call clearly and is connected again on the
 * next.
 */
class McpRoundTripTest {
  private static final String TOKEN = "mcp-token-7731";

  private InMemoryBreadcrumbStore served;
  private ToolRunner servingRunner;
  private McpToolServer server;
  private InMemoryBreadcrumbStore local;
  private ToolRunner localRunner;

  @BeforeEach
  void start() {
    served = InMemoryBreadcrumbStore.builder().eventExecutor(Runnable::run).build();
    BuiltinTools.seed(served);
    servingRunner = ToolRunner.builder(served).build();
    server = McpToolServer.builder(servingRunner).http("127.0.0.1", 0, TOKEN);
    local = InMemoryBreadcrumbStore.builder().eventExecutor(Runnable::run).build();
    localRunner = ToolRunner.builder(local)
        .secretResolver(SecretResolver.environment(Map.of("REMOTE_MCP_TOKEN", "Bearer " + TOKEN)))
        .trustPolicy(ToolTrustPolicy.builder().allowNetwork("127.0.0.0/8").build())
        .build();
  }

  @AfterEach
  void stop() {
    localRunner.close();
    server.close();
    servingRunner.close();
  }

  private JsonNode serverJson(int port) {
    return RcrtJson.parse("{\"url\":\"http://127.0.0.1:" + port + "/mcp\",\"headers\":{\"Authorization\":\"secret:REMOTE_MCP_TOKEN\"}}");
  }

  @Test
  void anImportFollowsTheServersListAndItsToolsRunWithTheSecretHeader() throws Exception {
    try (McpImport imported = McpImport.follow(local, serverJson(server.uri().getPort()), "remote",
        v -> "Bearer " + TOKEN, Duration.ofSeconds(20))) {
      assertThat(local.get("mcp-remote-calculator")).isPresent();
      Breadcrumb record = local.get("mcp-remote-calculator").orElseThrow();
      assertThat(RcrtJson.write(record.context())).contains("secret:REMOTE_MCP_TOKEN").doesNotContain(TOKEN);

      ToolResponse r = localRunner.call(ToolRequest.of("remote.calculator", RcrtJson.parse("{\"expression\":\"6 * 7\"}"), "test"));
      assertThat(r.error()).isNull();
      assertThat(r.output().get("result").asInt()).isEqualTo(42);
      assertThat(served.search(Selector.schema("tool.request.v1"), 10, 0).get(0).createdBy()).isEqualTo("agent:mcp:rcrt");

      Breadcrumb added = served.create(BreadcrumbCreate.builder("tool.definition.v1", "Shout")
          .context(RcrtJson.parse("{\"name\":\"shout\",\"description\":\"echoes\",\"implementation\":{\"type\":\"builtin\",\"handler\":\"echo\"}}")).build());
      awaitPresence("mcp-remote-shout", true);
      served.delete(added.id());
      awaitPresence("mcp-remote-shout", false);
    }
    assertThat(RcrtJson.write(local.search(Selector.all(), 1000, 0))).doesNotContain(TOKEN);
  }

  @Test
  void aServerThatWentAwayFailsOneCallClearlyAndIsConnectedAgainOnTheNext() throws Exception {
    int port = server.uri().getPort();
    local.create(BreadcrumbCreate.builder("tool.v1", "remote calculator").context(RcrtJson.parse("""
        {"name":"rc","implementation":{"type":"mcp","server":%s,"tool":"calculator"}}""".formatted(RcrtJson.write(serverJson(port))))).build());
    ToolRequest six = ToolRequest.of("rc", RcrtJson.parse("{\"expression\":\"2 * 3\"}"), "test");
    assertThat(localRunner.call(six).output().get("result").asInt()).isEqualTo(6);

    server.close();
    ToolResponse down = localRunner.call(ToolRequest.of("rc", RcrtJson.parse("{\"expression\":\"2 * 3\"}"), "test"));
    assertThat(down.errorCode()).isEqualTo("tool_failed");
    assertThat(down.error()).contains("http://127.0.0.1:" + port + "/mcp").contains("started again on the next call").doesNotContain(TOKEN);

    server = McpToolServer.builder(servingRunner).http("127.0.0.1", port, TOKEN);
    ToolResponse again = localRunner.call(ToolRequest.of("rc", RcrtJson.parse("{\"expression\":\"2 * 3\"}"), "test"));
    assertThat(again.error()).isNull();
    assertThat(again.output().get("result").asInt()).isEqualTo(6);
  }

  /** Waits up to 60 s for {@code id} to be there or gone, looking again at each write to the local store (its events). */
  private void awaitPresence(String id, boolean present) throws Exception {
    dev.rcrt.testing.StoreWaits.until(local, () -> local.get(id).isPresent() == present, Duration.ofSeconds(60));
    assertThat(local.get(id).isPresent()).as(id + (present ? " imported" : " removed")).isEqualTo(present);
  }
}
