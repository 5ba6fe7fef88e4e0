package dev.rcrt.tools;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbFiles;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.LoadReport;
import dev.rcrt.tools.internal.builtin.Calculator;
import dev.rcrt.tools.internal.builtin.CreateBreadcrumb;
import dev.rcrt.tools.internal.builtin.Echo;
import dev.rcrt.tools.internal.builtin.RandomNumbers;
import dev.rcrt.tools.internal.builtin.SearchBreadcrumbs;
import dev.rcrt.tools.internal.builtin.Timer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The tools bundled with the SDK, with the input and output shapes of RCRT's tools of the same
 * names: {@code echo}, {@code calculator}, {@code random}, {@code timer}, {@code
 * breadcrumb-search} and {@code breadcrumb-create}.
 *
 * <p>Each is a {@link ToolHandler} (registered by default with every {@link ToolRunner}) and a
 * {@code tool.definition.v1} breadcrumb with id {@code tool-def-<name>}, which {@link #seed} writes
 * to a store so agents can discover it. Stateless and thread-safe.
 */
public final class BuiltinTools {
  private static final Map<String, ToolHandler> HANDLERS = handlersInOrder();

  private BuiltinTools() {}

  /** The handlers by tool name, in a stable order. */
  public static Map<String, ToolHandler> handlers() {
    return HANDLERS;
  }

  /** The bundled tool breadcrumbs, one per handler, ready to store. */
  public static List<BreadcrumbCreate> definitions() {
    List<BreadcrumbCreate> all = new ArrayList<>();
    for (String name : HANDLERS.keySet()) {
      String resource = "builtin/" + name + ".json";
      try (InputStream in = BuiltinTools.class.getResourceAsStream(resource)) {
        if (in == null) {
          throw new IllegalStateException("bundled tool definition missing: " + resource);
        }
        LoadReport<BreadcrumbCreate> parsed = BreadcrumbFiles.parse(resource, in);
        if (!parsed.isClean()) {
          throw new IllegalStateException("bundled tool definition broken: " + parsed.problems());
        }
        all.addAll(parsed.items());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return all;
  }

  /**
   * Writes the bundled tool breadcrumbs to {@code store}, replacing earlier copies with the same
   * ids, so seeding twice leaves one of each.
   *
   * @return the stored breadcrumbs
   */
  public static List<Breadcrumb> seed(BreadcrumbStore store) {
    return definitions().stream().map(d -> BreadcrumbFiles.upsert(store, d)).toList();
  }

  private static Map<String, ToolHandler> handlersInOrder() {
    Map<String, ToolHandler> map = new LinkedHashMap<>();
    map.put("echo", new Echo());
    map.put("calculator", new Calculator());
    map.put("random", new RandomNumbers());
    map.put("timer", new Timer());
    map.put("breadcrumb-search", new SearchBreadcrumbs());
    map.put("breadcrumb-create", new CreateBreadcrumb());
    return java.util.Collections.unmodifiableMap(map);
  }
}
