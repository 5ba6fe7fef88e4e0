package dev.rcrt.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.SecretResolver;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import dev.rcrt.tools.ToolTrustPolicy;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A stdio MCP server the SDK starts gets the MCP SDKs' default environment and what its record
 * gives it, never the host's secrets. The build starts this test's JVM with {@code
 * RCRT_TEST_HOST_SECRET} and {@code OPENAI_API_KEY} set (see this module's pom); the server, a real
 * child process, reports the environment it was started with.
 */
class McpEnvironmentTest {
  private static final String HOST_SECRET = "host-secret-4471";
  private static final String MODEL_KEY = "sk-test-model-key-9912";

  private final InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().eventExecutor(Runnable::run).build();

  private void defineServerTool() {
    defineServerTool("dump", "environment");
  }

  private void defineServerTool(String name, String tool) {
    ArrayNode command = RcrtJson.array()
        .add(Path.of(System.getProperty("java.home"), "bin", "java").toString())
        .add("-cp").add(System.getProperty("java.class.path"))
        .add(EnvironmentDumpServer.class.getName());
    ObjectNode server = RcrtJson.object();
    server.set("command", command);
    server.set("env", RcrtJson.parse("{\"GREETING\":\"hello\",\"SERVER_TOKEN\":\"secret:SERVER_TOKEN\"}"));
    ObjectNode context = RcrtJson.parse("{\"name\":\"" + name + "\",\"implementation\":{\"type\":\"mcp\",\"tool\":\"" + tool + "\"}}").deepCopy();
    ((ObjectNode) context.get("implementation")).set("server", server);
    store.create(BreadcrumbCreate.builder("tool.v1", name).context(context).build());
  }

  private static JsonNode environmentSeenBy(ToolRunner runner) {
    ToolResponse r = runner.call(ToolRequest.of("dump", RcrtJson.object(), "test"));
    assertThat(r.error()).isNull();
    return r.output().get("env");
  }

  @Test
  void aStdioServerSeesTheDefaultEnvironmentAndItsRecordsEnvButNoHostSecret() {
    assertThat(System.getenv("RCRT_TEST_HOST_SECRET")).as("set by the build for this test").isEqualTo(HOST_SECRET);
    assertThat(System.getenv("OPENAI_API_KEY")).as("set by the build for this test").isEqualTo(MODEL_KEY);
    defineServerTool();
    try (ToolRunner runner = ToolRunner.builder(store)
        .secretResolver(SecretResolver.environment(Map.of("SERVER_TOKEN", "token-for-the-server")))
        .trustPolicy(ToolTrustPolicy.builder().allowCommands("*").build())
        .build()) {
      JsonNode env = environmentSeenBy(runner);
      assertThat(env.path("GREETING").asText()).isEqualTo("hello");
      // resolved for the server, then scrubbed from the output that reports it back
      assertThat(env.path("SERVER_TOKEN").asText()).isEqualTo("[secret]");
      assertThat(env.has("PATH")).isTrue();
      assertThat(env.has("RCRT_TEST_HOST_SECRET")).isFalse();
      assertThat(env.has("OPENAI_API_KEY")).isFalse();
      assertThat(RcrtJson.write(env)).doesNotContain(HOST_SECRET).doesNotContain(MODEL_KEY);
      List<String> allowed = List.of("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "GREETING", "SERVER_TOKEN");
      env.fieldNames().forEachRemaining(name -> assertThat(allowed).as("variable %s reached the server", name).contains(name));
    }
  }

  @Test
  void aServerThatDiesDuringACallFailsItAtOnceAndIsStartedAgainForTheNext() {
    defineServerTool();
    defineServerTool("halt", "halt");
    try (ToolRunner runner = ToolRunner.builder(store)
        .secretResolver(SecretResolver.environment(Map.of("SERVER_TOKEN", "token-for-the-server")))
        .trustPolicy(ToolTrustPolicy.builder().allowCommands("*").build())
        .build()) {
      ToolResponse died = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(30),
          () -> runner.call(ToolRequest.of("halt", RcrtJson.object(), "test")));
      assertThat(died.errorCode()).isEqualTo("tool_failed");
      assertThat(died.error()).contains("exited").contains("halting as asked").contains("started again on the next call");
      assertThat(environmentSeenBy(runner).path("GREETING").asText()).isEqualTo("hello");
    }
  }

  @Test
  void aRotatedSecretStartsTheServerAgainAndStopsTheOldOne() throws Exception {
    defineServerTool();
    java.util.concurrent.atomic.AtomicReference<String> token = new java.util.concurrent.atomic.AtomicReference<>("first-token-value-1");
    try (ToolRunner runner = ToolRunner.builder(store)
        .secretResolver(name -> name.equals("SERVER_TOKEN") ? java.util.Optional.of(token.get()) : java.util.Optional.empty())
        .trustPolicy(ToolTrustPolicy.builder().allowCommands("*").build())
        .build()) {
      long first = runner.call(ToolRequest.of("dump", RcrtJson.object(), "test")).requireOutput().path("pid").asLong();
      assertThat(runner.call(ToolRequest.of("dump", RcrtJson.object(), "test")).requireOutput().path("pid").asLong())
          .as("the same values reuse the running server").isEqualTo(first);
      token.set("second-token-value-2");
      long second = runner.call(ToolRequest.of("dump", RcrtJson.object(), "test")).requireOutput().path("pid").asLong();
      assertThat(second).as("a server started with the new value").isNotEqualTo(first);
      ProcessHandle old = ProcessHandle.of(first).orElse(null);
      if (old != null) {
        old.onExit().get(20, java.util.concurrent.TimeUnit.SECONDS); // the stale session's server is stopped
      }
    }
  }

  @Test
  void theHostWidensTheEnvironmentOnlyByName() {
    defineServerTool();
    try (ToolRunner runner = ToolRunner.builder(store)
        .runtime(new McpToolRuntime(List.of("RCRT_TEST_HOST_SECRET")))
        .secretResolver(SecretResolver.environment(Map.of("SERVER_TOKEN", "token-for-the-server")))
        .trustPolicy(ToolTrustPolicy.builder().allowCommands("*").build())
        .build()) {
      JsonNode env = environmentSeenBy(runner);
      assertThat(env.path("RCRT_TEST_HOST_SECRET").asText()).isEqualTo(HOST_SECRET);
      assertThat(env.has("OPENAI_API_KEY")).isFalse();
    }
  }
}
