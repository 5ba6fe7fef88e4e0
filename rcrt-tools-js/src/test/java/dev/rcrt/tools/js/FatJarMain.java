package dev.rcrt.tools.js;

import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;

/**
 * The application inside {@link FatJarWorkerTest}'s executable jar: runs one JavaScript tool and
 * prints its output, or its error and exit status 1.
 */
public final class FatJarMain {
  private FatJarMain() {}

  public static void main(String[] args) {
    InMemoryBreadcrumbStore store = new InMemoryBreadcrumbStore();
    store.create(BreadcrumbCreate.builder("tool.code.v1", "square").context(RcrtJson.parse("""
        {"name":"square","code":{"language":"javascript","source":"export function execute(i) { return {square: i.n * i.n}; }"},
         "input_schema":{"type":"object"}}""")).build());
    try (ToolRunner runner = ToolRunner.builder(store).build()) {
      ToolResponse r = runner.call(ToolRequest.of("square", RcrtJson.parse("{\"n\":12}"), "fat-jar"));
      if (!r.success()) {
        System.out.println("error: " + r.error());
        System.exit(1);
      }
      System.out.println("output: " + RcrtJson.write(r.output()) + " classpath: " + System.getProperty("java.class.path"));
    }
  }
}
