package dev.rcrt.benchmarks;

import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.BuiltinTools;

/** Data the benchmarks share. */
final class Fixtures {
  private Fixtures() {}

  /** {@code n} notes over 100 sessions and 10 schemas, each with a small context. */
  static void fillStore(BreadcrumbStore store, int n) {
    for (int i = 0; i < n; i++) {
      store.create(note(i));
    }
  }

  static BreadcrumbCreate note(int i) {
    return BreadcrumbCreate.builder("note.v" + (i % 10), "Note " + i)
        .tags("session:s" + (i % 100), "kind:note", "bucket:" + (i % 1000))
        .context(RcrtJson.object().put("n", i).put("text", "note number " + i).put("priority", i % 5))
        .build();
  }

  /**
   * {@code count} tool breadcrumbs: the six bundled ones, then {@code tool.code.v1} records shaped
   * like RCRT's (name, description, schemas, examples, inline code) up to the count.
   */
  static void seedTools(BreadcrumbStore store, int count) {
    BuiltinTools.seed(store);
    seedCodeTools(store, BuiltinTools.handlers().size(), count);
  }

  /** {@code tool.code.v1} records {@code tool-<from>} to {@code tool-<to - 1>}. */
  static void seedCodeTools(BreadcrumbStore store, int from, int to) {
    for (int i = from; i < to; i++) {
      store.create(
          BreadcrumbCreate.builder("tool.code.v1", "Tool " + i)
              .tags("tool", "workspace:tools")
              .context(
                  RcrtJson.parse(
                      """
                      {"name":"tool-%d","description":"Convert a quantity between units, family %d",
                       "code":{"language":"javascript","source":"export async function execute(input){return {value: input.value};}"},
                       "input_schema":{"type":"object","properties":{"value":{"type":"number","description":"Amount"},
                         "from":{"type":"string"},"to":{"type":"string"}},"required":["value","from","to"]},
                       "output_schema":{"type":"object","properties":{"value":{"type":"number"},"unit":{"type":"string"}}},
                       "permissions":{"net":false},"limits":{"timeout_ms":1000},
                       "examples":[{"description":"km to m","input":{"value":1,"from":"km","to":"m"},
                                    "output":{"value":1000,"unit":"m"},"explanation":"Read result.value"}]}
                      """
                          .formatted(i, i % 7)))
              .build());
    }
  }
}
