package dev.rcrt.cli;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.junit5.WireMockExtension;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.docker.TestDocker;
import dev.rcrt.tools.testing.TestJars;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code ./rcrt tool call} for each implementation type, against the real thing. */
class ToolCallCommandTest {
  @RegisterExtension
  static WireMockExtension server = WireMockExtension.newInstance().options(wireMockConfig().dynamicPort()).build();

  @TempDir Path dir;

  private Path tool(String file, String json) throws Exception {
    Path p = dir.resolve(file);
    Files.writeString(p, json);
    return p;
  }

  @Test
  void builtinPrintsTheOutputJson() {
    CliHarness run = CliHarness.run("tool", "call", "calculator", "{\"expression\":\"(2 + 3) * 4\"}");
    assertThat(run.status).isZero();
    assertThat(RcrtJson.parse(run.out()).get("result").asInt()).isEqualTo(20);
  }

  @Test
  void aSchemaViolationExitsOneWithThePointer() {
    CliHarness run = CliHarness.run("tool", "call", "calculator", "{\"expression\":5}");
    assertThat(run.status).isEqualTo(1);
    assertThat(run.out()).isEmpty();
    assertThat(run.err().strip()).isEqualTo("rcrt: tool 'calculator' input /expression: expected string, found integer [tool_input_invalid]");
  }

  @Test
  void moduleFromAJar() throws Exception {
    Path jar = TestJars.moduleJar(dir, "acme.jar", "acme.AcmeTools", TestJars.ACME, "acme.AcmeTools");
    Path def = tool("shout.json", """
        {"schema_name":"tool.v1","title":"Shout","context":{"name":"shout",
         "implementation":{"type":"module","module":%s,"export":"shout","version":"1.2.0"}}}
        """.formatted(RcrtJson.write(RcrtJson.nodes().textNode(jar.toString()))));
    CliHarness run = CliHarness.run("tool", "call", "shout", "{\"text\":\"hi\"}", "--breadcrumbs", def.toString(), "--allow-module-dir", dir.toString());
    assertThat(run.err()).isEmpty();
    assertThat(RcrtJson.parse(run.out()).get("text").asText()).isEqualTo("HI!");
  }

  /** A module tool that leaves a library's thread running (as Tomcat's are under mcp serve) and throws an Error. */
  private static final String BREAKS = """
      package acme;
      import dev.rcrt.tools.*;
      import java.util.Map;
      public final class Breaks implements ToolModule {
        public String name() { return "breaks"; }
        public String version() { return "1.0.0"; }
        public Map<String, ToolHandler> handlers() {
          return Map.of("exhaust", (input, context) -> {
            Thread lingering = new Thread(() -> {
              try { Thread.sleep(Long.MAX_VALUE); } catch (InterruptedException e) { }
            }, "a-library-thread");
            lingering.start(); // not a daemon: it alone keeps a JVM alive that ends by returning from main
            throw new OutOfMemoryError("simulated heap exhaustion");
          });
        }
      }
      """;

  @Test
  void anErrorThatEndsACommandEndsTheProcessWithOneLineAndStatus1EvenWithThreadsStillRunning() throws Exception {
    Path jar = TestJars.moduleJar(dir, "breaks.jar", "acme.Breaks", BREAKS, "acme.Breaks");
    Path def = tool("exhaust.json", """
        {"schema_name":"tool.v1","title":"Exhaust","context":{"name":"exhaust",
         "implementation":{"type":"module","module":%s,"export":"exhaust","version":"1.0.0"}}}
        """.formatted(RcrtJson.write(RcrtJson.nodes().textNode(jar.toString()))));
    Path log = dir.resolve("exhaust.log");
    Process p = TestJvm.start(List.of(), List.of("dev.rcrt.cli.Main", "tool", "call", "exhaust", "{}", "--breadcrumbs", def.toString(),
        "--allow-module-dir", dir.toString()), log);
    boolean ended = p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS);
    if (!ended) {
      p.destroyForcibly().waitFor();
    }
    assertThat(ended).as("the process ended; its output: %s", Files.readString(log)).isTrue();
    assertThat(p.exitValue()).isEqualTo(1);
    String output = Files.readString(log);
    assertThat(output).contains("rcrt: stopped by OutOfMemoryError: simulated heap exhaustion; run again with -v for its stack trace")
        .doesNotContain("\tat ", "Exception in thread");
  }

  @Test
  void httpWithASecretFromTheEnvironmentAndItsStatusOnFailure() throws Exception {
    server.stubFor(post(urlEqualTo("/ok")).willReturn(aResponse().withHeader("Content-Type", "application/json").withBody("{\"temp\":20}")));
    server.stubFor(post(urlEqualTo("/down")).willReturn(aResponse().withStatus(503).withBody("maintenance")));
    Path defs = tool("http.json", """
        [{"schema_name":"tool.v1","title":"Weather","context":{"name":"weather",
          "implementation":{"type":"http","endpoint":"%1$s/ok","auth":{"type":"bearer","secret":"secret:WEATHER_KEY"}}}},
         {"schema_name":"tool.v1","title":"Down","context":{"name":"down","implementation":{"type":"http","endpoint":"%1$s/down"}}}]
        """.formatted(server.baseUrl()));
    CliHarness ok = CliHarness.run(Map.of("WEATHER_KEY", "wk-secret-1"), "", "tool", "call", "weather", "{}", "--breadcrumbs", defs.toString(), "--allow-network", "127.0.0.0/8");
    assertThat(RcrtJson.parse(ok.out()).get("temp").asInt()).isEqualTo(20);
    server.verify(postRequestedFor(urlEqualTo("/ok")).withHeader("Authorization", equalTo("Bearer wk-secret-1")));

    CliHarness down = CliHarness.run("tool", "call", "down", "{}", "--breadcrumbs", defs.toString(), "--allow-network", "127.0.0.0/8");
    assertThat(down.status).isEqualTo(1);
    assertThat(down.err()).contains("answered HTTP 503: maintenance");
  }

  @Test
  void breadcrumbJavaScriptAndItsTimeout() throws Exception {
    Path defs = tool("js.json", """
        [{"schema_name":"tool.code.v1","title":"Hello","context":{"name":"hello",
          "code":{"language":"typescript","source":"export async function execute(i: {name: string}) { return {greeting: `hello ${i.name}`}; }"}}},
         {"schema_name":"tool.code.v1","title":"Spin","context":{"name":"spin","limits":{"timeout_ms":200},
          "code":{"language":"javascript","source":"export function execute() { for (;;) {} }"}}}]
        """);
    CliHarness ok = CliHarness.run("tool", "call", "hello", "{\"name\":\"ada\"}", "--breadcrumbs", defs.toString());
    assertThat(RcrtJson.parse(ok.out()).get("greeting").asText()).isEqualTo("hello ada");

    CliHarness spin = CliHarness.run("tool", "call", "spin", "--breadcrumbs", defs.toString());
    assertThat(spin.status).isEqualTo(1);
    assertThat(spin.err()).contains("timed out after 200 ms");
  }

  @Test
  void typescriptTranspiledByOneCommandIsTakenFromTheUsersCacheByTheNextAndOnlyForItsOwnSource() throws Exception {
    Path cache = dir.resolve("cache");
    Path defs = tool("ts.json", """
        [{"schema_name":"tool.code.v1","title":"Twice","context":{"name":"twice",
          "code":{"language":"typescript","source":"export function execute(i: {n: number}) { return {n: i.n * 2}; }"}}}]
        """);
    Map<String, String> env = Map.of("RCRT_CACHE_DIR", cache.toString());
    assertThat(RcrtJson.parse(CliHarness.run(env, "", "tool", "call", "twice", "{\"n\":4}", "--breadcrumbs", defs.toString()).out()).get("n").asInt())
        .isEqualTo(8);
    List<Path> kept;
    try (var files = Files.list(cache)) {
      kept = files.toList();
    }
    assertThat(kept).hasSize(1);
    assertThat(Files.getPosixFilePermissions(cache)).containsExactlyInAnyOrder(
        java.nio.file.attribute.PosixFilePermission.OWNER_READ, java.nio.file.attribute.PosixFilePermission.OWNER_WRITE,
        java.nio.file.attribute.PosixFilePermission.OWNER_EXECUTE);
    // the next command runs what the cache holds for this source instead of transpiling: replace it to see
    var record = (com.fasterxml.jackson.databind.node.ObjectNode) RcrtJson.parse(Files.readString(kept.get(0)));
    ((com.fasterxml.jackson.databind.node.ObjectNode) record.get("context")).put("javascript", "export function execute(i) { return {n: -1}; }");
    Files.writeString(kept.get(0), RcrtJson.write(record));
    assertThat(RcrtJson.parse(CliHarness.run(env, "", "tool", "call", "twice", "{\"n\":4}", "--breadcrumbs", defs.toString()).out()).get("n").asInt())
        .isEqualTo(-1);
    // a record for another source is not used for this one
    ((com.fasterxml.jackson.databind.node.ObjectNode) record.get("context")).put("source_sha256", "0".repeat(64));
    Files.writeString(kept.get(0), RcrtJson.write(record));
    assertThat(RcrtJson.parse(CliHarness.run(env, "", "tool", "call", "twice", "{\"n\":4}", "--breadcrumbs", defs.toString()).out()).get("n").asInt())
        .isEqualTo(8);    // and the stale entry was replaced by the transpile that command made, so the next one does not transpile again
    assertThat(RcrtJson.parse(Files.readString(kept.get(0))).at("/context/source_sha256").asText()).isNotEqualTo("0".repeat(64));

    // a cache directory others may write, or a link to one, is not used: planted JavaScript would run as this user
    record = (com.fasterxml.jackson.databind.node.ObjectNode) RcrtJson.parse(Files.readString(kept.get(0)));
    ((com.fasterxml.jackson.databind.node.ObjectNode) record.get("context")).put("javascript", "export function execute(i) { return {n: -666}; }");
    Files.writeString(kept.get(0), RcrtJson.write(record));
    Files.setPosixFilePermissions(cache, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
    CliHarness open = CliHarness.run(env, "", "tool", "call", "twice", "{\"n\":4}", "--breadcrumbs", defs.toString());
    assertThat(RcrtJson.parse(open.out()).get("n").asInt()).isEqualTo(8);
    assertThat(open.err()).contains("transpile cache " + cache + " not used: it may be written by others (rwxrwxrwx)");
    Path link = Files.createSymbolicLink(dir.resolve("linked-cache"), cache);
    CliHarness linked = CliHarness.run(Map.of("RCRT_CACHE_DIR", link.toString()), "", "tool", "call", "twice", "{\"n\":4}",
        "--breadcrumbs", defs.toString());
    assertThat(RcrtJson.parse(linked.out()).get("n").asInt()).isEqualTo(8);
    assertThat(linked.err()).contains("not used: its target " + cache.toRealPath() + " may be written by others");
    assertThat(Files.readString(kept.get(0))).as("nothing was written into the open directory").contains("-666");
  }

  @Test
  void containerAndItsExitCode() throws Exception {
    TestDocker.require();
    Path defs = tool("container.json", """
        [{"schema_name":"tool.v1","title":"Echo","context":{"name":"echo-container",
          "implementation":{"type":"container","image":"%1$s","runtime":"docker","port":8080,"path":"/cgi-bin/run","command":%2$s}}},
         {"schema_name":"tool.v1","title":"Fail","context":{"name":"fail-container",
          "implementation":{"type":"container","image":"%1$s","mode":"stdio","command":["/bin/sh","-c","echo nope >&2; exit 4"]}}}]
        """.formatted(TestDocker.IMAGE, TestDocker.SERVER));
    CliHarness ok = CliHarness.run("tool", "call", "echo-container", "{\"n\":7}", "--breadcrumbs", defs.toString(), "--allow-image", TestDocker.IMAGE);
    assertThat(ok.err()).isEmpty();
    assertThat(RcrtJson.parse(ok.out()).at("/received/n").asInt()).isEqualTo(7);

    CliHarness fail = CliHarness.run("tool", "call", "fail-container", "--breadcrumbs", defs.toString(), "--allow-image", "rcrt-test/*");
    assertThat(fail.status).isEqualTo(1);
    assertThat(fail.err()).contains("container exited with code 4: nope");
  }
}
