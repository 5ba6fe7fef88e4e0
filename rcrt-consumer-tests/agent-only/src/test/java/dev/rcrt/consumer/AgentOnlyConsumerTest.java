package dev.rcrt.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.AgentExecutor;
import dev.rcrt.agent.UserMessage;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.ToolCall;
import dev.rcrt.testing.ScriptedLlmClient;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import dev.rcrt.tools.ToolTrustPolicy;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A project that depends on {@code rcrt-agent} alone, as a user's would: what it inherits stays
 * small, builtin and HTTP tools run through an agent, and the runtimes it did not add fail with a
 * message naming the artifact that brings them.
 */
class AgentOnlyConsumerTest {
  /** The target for an agent with builtin and HTTP tools: 15 MB (decimal megabytes). */
  private static final long MAX_BYTES = 15_000_000;

  private final InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().eventExecutor(Runnable::run).build();
  private HttpServer weather;
  private ToolRunner runner;

  @BeforeEach
  void start() throws IOException {
    weather = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    weather.createContext("/weather", x -> {
      String city = RcrtJson.parse(new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)).path("city").asText();
      byte[] body = ("{\"city\":\"" + city + "\",\"temp\":21}").getBytes(StandardCharsets.UTF_8);
      x.getResponseHeaders().add("Content-Type", "application/json");
      x.sendResponseHeaders(200, body.length);
      x.getResponseBody().write(body);
      x.close();
    });
    weather.start();
    BuiltinTools.seed(store);
    define("tool.v1", "weather", "{\"name\":\"weather\",\"description\":\"Current weather\",\"implementation\":{\"type\":\"http\",\"endpoint\":\"http://127.0.0.1:"
        + weather.getAddress().getPort() + "/weather\"},\"definition\":{\"inputSchema\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}}}");
    runner = ToolRunner.builder(store).trustPolicy(ToolTrustPolicy.builder().allowNetwork("127.0.0.0/8").build()).build();
  }

  @AfterEach
  void stop() {
    runner.close();
    weather.stop(0);
  }

  private void define(String schema, String title, String context) {
    store.create(BreadcrumbCreate.builder(schema, title).context(RcrtJson.parse(context)).build());
  }

  @Test
  void whatTheProjectInheritsStaysWithinFifteenMegabytesWithoutGraalJsOrDocker() throws IOException {
    List<Path> jars = Arrays.stream(Files.readString(Path.of(System.getProperty("rcrt.runtimeClasspath"))).trim().split(java.io.File.pathSeparator))
        .map(Path::of)
        .toList();
    long bytes = 0;
    for (Path jar : jars) {
      bytes += Files.size(jar);
    }
    assertThat(jars).extracting(p -> p.getFileName().toString())
        .anyMatch(name -> name.startsWith("rcrt-agent-"))
        .noneMatch(name -> name.startsWith("polyglot-") || name.startsWith("js-language-") || name.startsWith("truffle-"))
        .noneMatch(name -> name.startsWith("docker-java") || name.startsWith("typescript-") || name.startsWith("nashorn"));
    assertThat(bytes).as("bytes in %d jars", jars.size()).isLessThanOrEqualTo(MAX_BYTES);
    assertThatThrownBy(() -> Class.forName("org.graalvm.polyglot.Context")).isInstanceOf(ClassNotFoundException.class);
  }

  @Test
  void anAgentRunsABuiltinAndAnHttpTool() {
    ScriptedLlmClient llm = ScriptedLlmClient.replying(
        ChatResponse.toolCalls(
            new ToolCall("c1", "calculator", "{\"expression\":\"17 * 23\"}"),
            new ToolCall("c2", "weather", "{\"city\":\"Oslo\"}")),
        ChatResponse.text("391, and 21 degrees in Oslo"));
    AgentDefinition agent = AgentDefinition.fromBreadcrumb(store.create(AgentDefinition.defaultChatAgent()));
    try (AgentExecutor executor = AgentExecutor.builder(llm, runner).agent(agent).build()) {
      Breadcrumb question = store.create(new UserMessage("s1", "What is 17 * 23, and the weather in Oslo?").toBreadcrumb());
      assertThat(executor.answer(question).contextText("message")).isEqualTo("391, and 21 degrees in Oslo");
    }
    List<ToolResponse> responses = store.search(Selector.schema(ToolResponse.SCHEMA), 10, 0).stream().map(ToolResponse::fromBreadcrumb).toList();
    assertThat(responses).allSatisfy(r -> assertThat(r.error()).isNull()).hasSize(2);
    assertThat(responses).anySatisfy(r -> assertThat(RcrtJson.write(r.output())).contains("391"));
    assertThat(responses).anySatisfy(r -> assertThat(RcrtJson.write(r.output())).isEqualTo("{\"city\":\"Oslo\",\"temp\":21}"));
  }

  @Test
  void aJavaScriptOrContainerToolFailsNamingTheArtifactToAdd() {
    define("tool.code.v1", "shout", "{\"name\":\"shout\",\"code\":{\"language\":\"javascript\",\"source\":\"export function execute(i) { return {}; }\"}}");
    define("tool.v1", "boxed", "{\"name\":\"boxed\",\"implementation\":{\"type\":\"container\",\"image\":\"acme/boxed:1\"}}");

    ToolResponse js = runner.call(ToolRequest.of("shout", RcrtJson.object(), "consumer"));
    assertThat(js.errorCode()).isEqualTo("tool_unsupported");
    assertThat(js.error()).contains("add the dependency dev.rcrt:rcrt-tools-js");
    assertThat(runner.call(ToolRequest.of("boxed", RcrtJson.object(), "consumer")).error()).contains("add the dependency dev.rcrt:rcrt-tools-docker");
  }
}
