package dev.rcrt.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import java.util.List;
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
 * Per-call cost of a container tool: a reused server container (one POST on loopback) against a
 * one-shot stdio container (create, attach, start, wait, read the log, remove). Needs a Docker
 * daemon and the image {@code rcrt-bench/echo:1}, which {@code ./bench.sh} builds with {@code
 * docker import}; without them this benchmark fails in its setup and the others still run.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class ContainerToolBenchmark {
  static final String IMAGE = "rcrt-bench/echo:1";
  ToolRunner runner;
  final JsonNode input = RcrtJson.parse("{\"n\":1}");

  @Setup(Level.Trial)
  public void setUp() {
    InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().eventExecutor(Runnable::run).build();
    store.create(BreadcrumbCreate.builder("tool.v1", "server").context(RcrtJson.parse(
        "{\"name\":\"echo-server\",\"implementation\":{\"type\":\"container\",\"image\":\"" + IMAGE + "\",\"port\":8080,"
            + "\"path\":\"/cgi-bin/run\",\"command\":[\"/bin/httpd\",\"-f\",\"-p\",\"8080\",\"-h\",\"/www\"]}}")).build());
    store.create(BreadcrumbCreate.builder("tool.v1", "stdio").context(RcrtJson.parse(
        "{\"name\":\"echo-stdio\",\"implementation\":{\"type\":\"container\",\"image\":\"" + IMAGE + "\",\"mode\":\"stdio\","
            + "\"command\":[\"/bin/cat\"]}}")).build());
    runner = ToolRunner.builder(store).trustPolicy(dev.rcrt.tools.ToolTrustPolicy.builder().allowImages("rcrt-bench/*").build()).build();
    for (String tool : List.of("echo-server", "echo-stdio")) {
      ToolResponse first = runner.call(ToolRequest.of(tool, input, "bench"));
      if (!first.success()) {
        throw new IllegalStateException("container benchmark needs Docker and " + IMAGE + ": " + first.error());
      }
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    runner.close();
  }

  @Benchmark
  public ToolResponse serverContainerReused() {
    return runner.call(ToolRequest.of("echo-server", input, "bench"));
  }

  @Benchmark
  public ToolResponse stdioContainerOneShot() {
    return runner.call(ToolRequest.of("echo-stdio", input, "bench"));
  }
}
