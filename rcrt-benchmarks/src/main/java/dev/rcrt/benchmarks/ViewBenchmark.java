package dev.rcrt.benchmarks;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbView;
import dev.rcrt.core.ContextView;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import java.util.ArrayList;
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

/**
 * llm_hints views: one {@code tool.code.v1} record shaped by RCRT's schema-level hints (include
 * name, description, schemas, examples; exclude code, permissions, limits, ui_schema), and the
 * direct-discovery tool context of the design: 14 tool records fetched from the store and each
 * viewed through its hints. The design documents report 25–30 ms for the latter.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ViewBenchmark {
  ContextView views;
  InMemoryBreadcrumbStore store;
  Breadcrumb tool;

  @Setup(Level.Trial)
  public void setUp() {
    store = InMemoryBreadcrumbStore.builder().eventExecutor(Runnable::run).build();
    store.create(BreadcrumbCreate.builder(ContextView.SCHEMA_DEFINITION, "tool.code.v1 schema").tags("defines:tool.code.v1")
        .llmHints(RcrtJson.parse("{\"include\":[\"name\",\"description\",\"input_schema\",\"output_schema\",\"examples\"],"
            + "\"exclude\":[\"code\",\"permissions\",\"limits\",\"ui_schema\"]}")).build());
    Fixtures.seedCodeTools(store, 0, 14);
    tool = store.search(Selector.schema("tool.code.v1"), 1, 0).get(0);
    views = ContextView.of(store);
  }

  @Benchmark
  public BreadcrumbView viewOfAToolRecord() {
    return views.view(tool).orElseThrow();
  }

  /** Fetch every tool.code.v1 (limit 50, as the design's context source) and view each. */
  @Benchmark
  public List<BreadcrumbView> toolContextFromStoreWithHints() {
    List<BreadcrumbView> out = new ArrayList<>();
    for (Breadcrumb b : store.search(Selector.schema("tool.code.v1"), 50, 0)) {
      views.view(b).ifPresent(out::add);
    }
    return out;
  }
}
