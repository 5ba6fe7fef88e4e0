package dev.rcrt.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.RcrtJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ./rcrt chat --trace FILE}: the run's GenAI spans as OTLP JSON. */
class ChatTraceTest {
  @TempDir Path dir;

  @Test
  void theRunsSpansAreWrittenAsOtlpJsonWithTheGenAiAttributes() throws Exception {
    Path trace = dir.resolve("t.json");
    CliHarness run = CliHarness.run(Map.of("SOME_TOOL_KEY", "canary-77123"), "", "chat", "--trace", trace.toString(), "What is 17 * 23?");
    assertThat(run.status).as(run.err()).isZero();
    assertThat(run.out()).contains("391");

    List<JsonNode> spans = new ArrayList<>();
    for (String line : Files.readAllLines(trace)) {
      for (JsonNode rs : RcrtJson.parse(line).path("resourceSpans")) {
        for (JsonNode ss : rs.path("scopeSpans")) {
          ss.path("spans").forEach(spans::add);
        }
      }
    }
    Map<String, JsonNode> byName = new HashMap<>();
    spans.forEach(s -> byName.put(s.path("name").asText(), s));
    assertThat(byName).containsKeys("invoke_agent default-chat-assistant", "chat gpt-4o-mini", "execute_tool calculator");
    JsonNode turn = byName.get("invoke_agent default-chat-assistant");
    JsonNode tool = byName.get("execute_tool calculator");
    assertThat(tool.path("parentSpanId").asText()).isEqualTo(turn.path("spanId").asText());
    assertThat(attribute(tool, "gen_ai.operation.name")).isEqualTo("execute_tool");
    assertThat(attribute(tool, "gen_ai.tool.name")).isEqualTo("calculator");
    assertThat(attribute(byName.get("chat gpt-4o-mini"), "gen_ai.provider.name")).isEqualTo("rcrt.offline_demo");
    assertThat(attribute(byName.get("chat gpt-4o-mini"), "gen_ai.request.model")).isEqualTo("gpt-4o-mini");
    assertThat(Files.readString(trace)).doesNotContain("canary-77123").doesNotContain("What is 17");
    JsonNode resource = RcrtJson.parse(Files.readAllLines(trace).get(0)).path("resourceSpans").get(0).path("resource");
    assertThat(RcrtJson.write(resource)).contains("\"service.name\"").contains("\"rcrt-cli\"").doesNotContain("unknown_service");

    Path named = dir.resolve("named.json");
    CliHarness.run(Map.of("OTEL_SERVICE_NAME", "billing-agent"), "", "chat", "--trace", named.toString(), "What is 17 * 23?");
    assertThat(Files.readString(named)).contains("\"billing-agent\"");
  }

  @Test
  void traceContentPutsTheConversationAndTheToolsArgumentsOnTheSpans() throws Exception {
    Path trace = dir.resolve("content.json");
    CliHarness run = CliHarness.run(Map.of(), "", "chat", "--trace", trace.toString(), "--trace-content", "What is 17 * 23?");
    assertThat(run.status).as(run.err()).isZero();
    String written = Files.readString(trace);
    assertThat(written).contains("gen_ai.input.messages").contains("What is 17 * 23?").contains("gen_ai.tool.call.arguments")
        .contains("gen_ai.tool.call.result");
  }

  private static String attribute(JsonNode span, String key) {
    for (JsonNode a : span.path("attributes")) {
      if (a.path("key").asText().equals(key)) {
        return a.path("value").path("stringValue").asText();
      }
    }
    return "";
  }
}
