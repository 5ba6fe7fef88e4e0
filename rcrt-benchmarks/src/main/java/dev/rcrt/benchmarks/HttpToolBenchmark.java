package dev.rcrt.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * An HTTP tool on loopback against a bare {@link HttpClient} call to the same endpoint (the JDK's
 * own HTTP server answering a fixed JSON body). The bare call sends the same JSON and parses the
 * answer with Jackson, as the tool does; the tool adds the runner's pipeline around it, whose fixed
 * cost {@link #noopToolThroughRunner()} measures with a Java tool that does nothing.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class HttpToolBenchmark {
  HttpServer server;
  ToolRunner runner;
  HttpClient http;
  URI endpoint;
  final JsonNode input = RcrtJson.parse("{\"city\":\"Tokyo\"}");

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    // Without TCP_NODELAY the JDK server's small responses stall ~40 ms on delayed ACKs.
    System.setProperty("sun.net.httpserver.nodelay", "true");
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
    byte[] answer = "{\"temp\":21.5,\"unit\":\"C\"}".getBytes(StandardCharsets.UTF_8);
    server.createContext("/weather", exchange -> {
      exchange.getRequestBody().readAllBytes();
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, answer.length);
      exchange.getResponseBody().write(answer);
      exchange.close();
    });
    server.start();
    endpoint = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/weather");
    http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().eventExecutor(Runnable::run).build();
    store.create(BreadcrumbCreate.builder("tool.v1", "Weather").context(RcrtJson.parse(
        "{\"name\":\"weather\",\"implementation\":{\"type\":\"http\",\"endpoint\":\"" + endpoint + "\"},"
            + "\"definition\":{\"inputSchema\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}},"
            + "\"outputSchema\":{\"type\":\"object\",\"properties\":{\"temp\":{\"type\":\"number\"}}}}}")).build());
    store.create(BreadcrumbCreate.builder("tool.v1", "No-op").context(RcrtJson.parse(
        "{\"name\":\"noop\",\"implementation\":{\"type\":\"builtin\"},"
            + "\"definition\":{\"inputSchema\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}},"
            + "\"outputSchema\":{\"type\":\"object\",\"properties\":{\"temp\":{\"type\":\"number\"}}}}}")).build());
    JsonNode fixed = RcrtJson.parse("{\"temp\":21.5,\"unit\":\"C\"}");
    runner = ToolRunner.builder(store).handler("noop", (in, ctx) -> fixed)
        .trustPolicy(dev.rcrt.tools.ToolTrustPolicy.builder().allowNetwork("127.0.0.0/8").build()).build();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    runner.close();
    server.stop(0);
  }

  @Benchmark
  public JsonNode bareHttpClient() throws Exception {
    HttpRequest request = HttpRequest.newBuilder(endpoint).timeout(Duration.ofSeconds(30))
        .header("Content-Type", "application/json").header("Accept", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(RcrtJson.write(input))).build();
    return RcrtJson.parse(http.send(request, HttpResponse.BodyHandlers.ofString()).body());
  }

  /** The runner's fixed cost (two breadcrumbs, resolve, validation) with a Java tool that does nothing. */
  @Benchmark
  public ToolResponse noopToolThroughRunner() {
    return runner.call(ToolRequest.of("noop", input, "bench"));
  }

  @Benchmark
  public ToolResponse httpToolThroughRunner() {
    return runner.call(ToolRequest.of("weather", input, "bench"));
  }
}
