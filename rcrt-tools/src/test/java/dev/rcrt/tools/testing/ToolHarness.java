package dev.rcrt.tools.testing;

import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import dev.rcrt.tools.ToolTrustPolicy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import java.util.function.Consumer;

/** A store, a runner and helpers to define and call tools in tests. */
public final class ToolHarness implements AutoCloseable {
  public final InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().eventExecutor(Runnable::run).build();
  public final ToolRunner runner;

  public ToolHarness() {
    this(b -> {});
  }

  /**
   * The policy harness runners start with: the defaults, plus what the loader tests need to reach
   * their real local components (WireMock on loopback, the test images). Module tests allow their
   * own jar directory; trust tests build their own runners with the plain defaults.
   */
  public static final ToolTrustPolicy LOCAL_TEST_POLICY =
      ToolTrustPolicy.builder()
          .allowNetwork("127.0.0.0/8")
          .allowNetwork("::1/128")
          .allowImages("rcrt-test/*")
          .build();

  public ToolHarness(Consumer<ToolRunner.Builder> configure) {
    ToolRunner.Builder b = ToolRunner.builder(store).trustPolicy(LOCAL_TEST_POLICY);
    configure.accept(b);
    runner = b.build();
  }

  /** Stores a tool breadcrumb with the given schema and context JSON. */
  public Breadcrumb define(String schema, String contextJson) {
    JsonNode context = RcrtJson.parse(contextJson);
    return store.create(BreadcrumbCreate.builder(schema, "tool " + context.path("name").asText()).context(context).build());
  }

  /**
   * Stores a JavaScript {@code tool.code.v1} tool {@code name} running {@code source}, taking any
   * object; {@code extraFields} is appended to its context (such as {@code ,"limits":{…}}), or empty.
   */
  public Breadcrumb defineJavaScript(String name, String source, String extraFields) {
    return define("tool.code.v1", """
        {"name":"%s","description":"test tool","code":{"language":"javascript","source":%s},
         "input_schema":{"type":"object"}%s}
        """.formatted(name, RcrtJson.write(RcrtJson.nodes().textNode(source)), extraFields));
  }

  public ToolResponse call(String tool, String inputJson) {
    return runner.call(ToolRequest.of(tool, RcrtJson.parse(inputJson), "test"));
  }

  /** Every breadcrumb in the store as one JSON text, to check that nothing leaked into it. */
  public String everything() {
    return RcrtJson.write(store.search(Selector.all(), 100_000, 0));
  }

  @Override
  public void close() {
    runner.close();
  }
}
