package dev.rcrt.tools;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** A host's own implementation type through the public {@link ToolRuntime} SPI, inside the same chain as the built-in types. */
class ToolRuntimeTest {
  /** Upper-cases {@code text}; refuses records without {@code implementation.suffix}. */
  static final class Upper implements ToolRuntime {
    final AtomicBoolean closed = new AtomicBoolean();

    @Override
    public String type() {
      return "upper";
    }

    @Override
    public List<String> problems(ToolDefinition definition) {
      return definition.implementation().spec().has("suffix") ? List.of() : List.of("implementation.suffix: required");
    }

    @Override
    public Loaded load(ToolDefinition definition, Services services) {
      String suffix = definition.implementation().spec().get("suffix").asText();
      return (input, call) -> RcrtJson.object().put("text", input.get("text").asText().toUpperCase() + suffix + call.secret("SUFFIX_KEY").length());
    }

    @Override
    public void close() {
      closed.set(true);
    }
  }

  @Test
  void aRuntimeRunsItsTypeThroughTheChainAndIsClosedWithTheRunner() {
    InMemoryBreadcrumbStore store = new InMemoryBreadcrumbStore();
    Upper upper = new Upper();
    ToolRunner runner = ToolRunner.builder(store).runtime(upper)
        .secretResolver(SecretResolver.environment(java.util.Map.of("SUFFIX_KEY", "abcdefgh"))).build();
    store.create(BreadcrumbCreate.builder("tool.v1", "shout").context(RcrtJson.parse("""
        {"name":"shout","implementation":{"type":"upper","suffix":"!"},"required_secrets":["SUFFIX_KEY"],
         "definition":{"inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}}""")).build());

    ToolResponse ok = runner.call(ToolRequest.of("shout", RcrtJson.parse("{\"text\":\"hi\"}"), "test"));
    assertThat(ok.error()).isNull();
    assertThat(ok.output().get("text").asText()).isEqualTo("HI!8");
    ToolResponse invalid = runner.call(ToolRequest.of("shout", RcrtJson.parse("{\"text\":5}"), "test"));
    assertThat(invalid.errorCode()).isEqualTo("tool_input_invalid");

    store.create(BreadcrumbCreate.builder("tool.v1", "broken").context(RcrtJson.parse("{\"name\":\"broken\",\"implementation\":{\"type\":\"upper\"}}")).build());
    assertThat(runner.problems(runner.discovery().find("broken").orElseThrow())).contains("implementation.suffix: required");
    runner.close();
    assertThat(upper.closed).isTrue();
  }

  @Test
  void startingAProgramIsACapabilityTheHostGrants() {
    assertThat(ToolTrustPolicy.defaults().allows(new Capability.StartProcess("npx"))).isFalse();
    ToolTrustPolicy policy = ToolTrustPolicy.builder().allowCommands("npx", "/opt/mcp/*").build();
    assertThat(policy.allows(new Capability.StartProcess("npx"))).isTrue();
    assertThat(policy.allows(new Capability.StartProcess("/opt/mcp/search"))).isTrue();
    assertThat(policy.allows(new Capability.StartProcess("/bin/sh"))).isFalse();
  }

  @Test
  void aToolWhoseRuntimeIsNotOnTheClasspathFailsNamingTheArtifactToAdd() {
    InMemoryBreadcrumbStore store = new InMemoryBreadcrumbStore();
    try (ToolRunner runner = ToolRunner.builder(store).build()) {
      store.create(BreadcrumbCreate.builder("tool.code.v1", "js").context(RcrtJson.parse(
          "{\"name\":\"js\",\"code\":{\"language\":\"javascript\",\"source\":\"export function execute() { return {}; }\"}}")).build());
      store.create(BreadcrumbCreate.builder("tool.v1", "box").context(RcrtJson.parse(
          "{\"name\":\"box\",\"implementation\":{\"type\":\"container\",\"image\":\"x\"}}")).build());
      store.create(BreadcrumbCreate.builder("tool.v1", "odd").context(RcrtJson.parse(
          "{\"name\":\"odd\",\"implementation\":{\"type\":\"wasm\"}}")).build());

      ToolResponse js = runner.call(ToolRequest.of("js", RcrtJson.object(), "test"));
      assertThat(js.errorCode()).isEqualTo("tool_unsupported");
      assertThat(js.error()).isEqualTo(
          "tool 'js' has implementation type 'breadcrumb', which this runner cannot run; add the dependency dev.rcrt:rcrt-tools-js"
              + " (its runtime is found on the classpath); supported: [builtin, http, module]");
      assertThat(runner.call(ToolRequest.of("box", RcrtJson.object(), "test")).error()).contains("add the dependency dev.rcrt:rcrt-tools-docker");
      assertThat(runner.call(ToolRequest.of("odd", RcrtJson.object(), "test")).error()).contains("no ToolRuntime on the classpath runs it");
      assertThat(runner.problems(runner.discovery().find("js").orElseThrow())).anySatisfy(p -> assertThat(p).contains("rcrt-tools-js"));
    }
  }

  /** Relays its input to {@code implementation.url} through the runner's HTTP, as a host's runtime would. */
  static final class Relay implements ToolRuntime {
    @Override
    public String type() {
      return "relay";
    }

    @Override
    public Loaded load(ToolDefinition definition, Services services) {
      URI url = URI.create(definition.implementation().spec().get("url").asText());
      services.checkConnect("tool '" + definition.name() + "'", url);
      boolean raw = definition.implementation().spec().path("raw").asBoolean();
      return (input, call) -> {
        String key = call.secret("RELAY_KEY");
        if (raw) {
          var response = call.send(HttpRequest.newBuilder(url).header("X-Key", key).build(), definition.maxResponseBytes());
          return RcrtJson.object().put("status", response.statusCode()).put("body", call.scrub(new String(response.body(), StandardCharsets.UTF_8)));
        }
        return call.exchangeJson("POST", url, Map.of("X-Key", key), input, definition.maxResponseBytes());
      };
    }
  }

  @Test
  void aRuntimeSendsThroughTheRunnersBoundedHttpAndItsAddressCheck() throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/echo", x -> {
      byte[] body = ("{\"got\":" + new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8) + ",\"key\":\""
          + x.getRequestHeaders().getFirst("X-Key") + "\"}").getBytes(StandardCharsets.UTF_8);
      x.getResponseHeaders().add("Content-Type", "application/json");
      x.sendResponseHeaders(200, body.length);
      x.getResponseBody().write(body);
      x.close();
    });
    server.createContext("/big", x -> {
      x.sendResponseHeaders(200, 0);
      x.getResponseBody().write(new byte[100_000]);
      x.close();
    });
    server.createContext("/text", x -> {
      x.sendResponseHeaders(500, 0);
      x.getResponseBody().write("down".getBytes(StandardCharsets.UTF_8));
      x.close();
    });
    server.start();
    String base = "http://127.0.0.1:" + server.getAddress().getPort();
    InMemoryBreadcrumbStore store = new InMemoryBreadcrumbStore();
    ToolTrustPolicy loopback = ToolTrustPolicy.builder().allowNetwork("127.0.0.0/8").build();
    try (ToolRunner strict = ToolRunner.builder(store).runtime(new Relay()).build();
        ToolRunner runner = ToolRunner.builder(store).runtime(new Relay()).trustPolicy(loopback)
            .secretResolver(SecretResolver.environment(Map.of("RELAY_KEY", "key-CANARY-4242"))).build()) {
      relay(store, "echo", base + "/echo", false, 10_000);
      relay(store, "big", base + "/big", true, 1000);
      relay(store, "down", base + "/text", false, 10_000);
      relay(store, "gone", "http://127.0.0.1:1/x", false, 10_000);

      assertThat(strict.call(ToolRequest.of("echo", RcrtJson.object(), "test")).errorCode()).isEqualTo("tool_capability_denied");
      ToolResponse echoed = runner.call(ToolRequest.of("echo", RcrtJson.parse("{\"n\":1}"), "test"));
      assertThat(RcrtJson.write(echoed.output())).isEqualTo("{\"got\":{\"n\":1},\"key\":\"[secret]\"}");
      ToolResponse big = runner.call(ToolRequest.of("big", RcrtJson.object(), "test"));
      assertThat(big.errorCode()).isEqualTo("tool_too_large");
      assertThat(big.error()).contains("answered more than 1000 bytes");
      ToolResponse down = runner.call(ToolRequest.of("down", RcrtJson.object(), "test"));
      assertThat(down.errorCode()).isEqualTo("tool_failed");
      assertThat(down.error()).contains("answered HTTP 500: down");
      ToolResponse gone = runner.call(ToolRequest.of("gone", RcrtJson.object(), "test"));
      assertThat(gone.errorCode()).isEqualTo("tool_unreachable");
      assertThat(gone.error()).startsWith("tool 'gone' could not reach http://127.0.0.1:1/x");
    } finally {
      server.stop(0);
    }
  }

  private static void relay(InMemoryBreadcrumbStore store, String name, String url, boolean raw, long maxResponseBytes) {
    var context = RcrtJson.object().put("name", name);
    context.putArray("required_secrets").add("RELAY_KEY");
    context.putObject("implementation").put("type", "relay").put("url", url).put("raw", raw);
    context.putObject("limits").put("max_response_bytes", maxResponseBytes);
    store.create(BreadcrumbCreate.builder("tool.v1", name).context(context).build());
  }

  @Test
  void aRuntimeThatEnforcesItsOwnDeadlineIsNotInterruptedAndSeesTheLimit() {
    InMemoryBreadcrumbStore store = new InMemoryBreadcrumbStore();
    AtomicBoolean interrupted = new AtomicBoolean();
    ToolRuntime patient = new ToolRuntime() {
      @Override
      public String type() {
        return "patient";
      }

      @Override
      public Loaded load(ToolDefinition definition, Services services) {
        assertThat(services.defaultTimeout()).isEqualTo(Duration.ofMillis(200));
        assertThat(services.store()).isSameAs(store);
        return new Loaded() {
          @Override
          public JsonNode call(JsonNode input, Call call) {
            long end = System.nanoTime() + call.remaining().toNanos() + Duration.ofMillis(150).toNanos();
            while (System.nanoTime() < end) {
              if (Thread.currentThread().isInterrupted()) {
                interrupted.set(true);
              }
              Thread.onSpinWait();
            }
            throw new ToolException("tool_timeout", "stopped itself after " + call.limit().toMillis() + " ms");
          }

          @Override
          public boolean enforcesDeadline() {
            return true;
          }
        };
      }
    };
    try (ToolRunner runner = ToolRunner.builder(store).runtime(patient).defaultTimeout(Duration.ofMillis(200)).build()) {
      store.create(BreadcrumbCreate.builder("tool.v1", "slow").context(RcrtJson.parse("{\"name\":\"slow\",\"implementation\":{\"type\":\"patient\"}}")).build());
      ToolResponse r = runner.call(ToolRequest.of("slow", RcrtJson.object(), "test"));
      assertThat(r.error()).isEqualTo("stopped itself after 200 ms");
      assertThat(interrupted).isFalse();
    }
  }
}
