package dev.rcrt.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.serverstore.FakeRcrtServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --store rcrt+http://…}: the command line working on a running RCRT server (our fake of its API). */
class RcrtServerCliTest {
  private FakeRcrtServer server;

  @TempDir Path dir;

  @BeforeEach
  void start() throws Exception {
    server = new FakeRcrtServer(Clock.systemUTC(), true, 500);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private Map<String, String> credentials() {
    return Map.of("RCRT_OWNER_ID", "00000000-0000-0000-0000-000000000001", "RCRT_AGENT_ID", "00000000-0000-0000-0000-0000000000d4");
  }

  private String url() {
    return "rcrt+" + server.baseUri();
  }

  @Test
  void chatAnswersThroughTheServerAndTheTrailStaysThere() throws Exception {
    CliHarness run = CliHarness.run(credentials(), "", "chat", "--store", url(), "--session", "srv", "What is 17 * 23?");
    assertThat(run.status).as(run.err()).isZero();
    assertThat(run.out()).contains("391");
    assertThat(server.calls.get("POST /auth/token").get()).isEqualTo(1);

    CliHarness again = CliHarness.run(credentials(), "", "search", "--store", url(), "--selector", "{\"schema_name\":\"agent.response.v1\"}");
    assertThat(again.status).as(again.err()).isZero();
    JsonNode answer = RcrtJson.parse(again.out().lines().findFirst().orElseThrow());
    assertThat(answer.path("context").path("message").asText()).contains("391");
    assertThat(RcrtJson.write(answer.path("tags"))).contains("session:srv").doesNotContain("sdk:");
  }

  @Test
  void breadcrumbSearchAsksTheServersVectorSearchForAQuery() throws Exception {
    Path tools = Path.of("src/test/resources/rcrt-tools");
    Path knowledge = dir.resolve("knowledge.json");
    Files.writeString(knowledge, """
        [{"schema_name":"knowledge.v1","title":"How to create an agent","tags":["knowledge"],"context":{"text":"An agent is an agent.def.v1 record"}},
         {"schema_name":"knowledge.v1","title":"Tides","tags":["knowledge"],"context":{"text":"the moon"}}]""");
    JsonNode example = RcrtJson.parse(Files.readString(tools.resolve("breadcrumb-search.json"))).path("context").path("examples").get(0).get("input");
    assertThat(example.get("query").asText()).isEqualTo("how to create an agent");
    for (JsonNode input : List.of(example, ((com.fasterxml.jackson.databind.node.ObjectNode) example.deepCopy()).put("schema_name", "knowledge.v1"))) {
      CliHarness run = CliHarness.run(credentials(), "", "tool", "call", "breadcrumb-search", RcrtJson.write(input),
          "--store", url(), "--breadcrumbs", tools.toString(), "--breadcrumbs", knowledge.toString());
      assertThat(run.status).as(run.err()).isZero();
      JsonNode out = RcrtJson.parse(run.out());
      assertThat(out.get("method").asText()).isEqualTo("vector");
      List<String> titles = new java.util.ArrayList<>();
      out.get("breadcrumbs").forEach(b -> titles.add(b.get("title").asText()));
      assertThat(titles).contains("How to create an agent").doesNotContain("Tides").hasSizeLessThanOrEqualTo(3);
      if (input.has("schema_name")) {
        assertThat(titles).containsExactly("How to create an agent");
      }
    }
  }

  @Test
  void aStoreUrlWithoutAHostIsAUsageError() {
    CliHarness run = CliHarness.run("search", "--store", "rcrt+http:///nohost", "--selector", "{}");
    assertThat(run.status).isEqualTo(2);
    assertThat(run.err()).contains("an RCRT server URL needs a host");
  }
}
