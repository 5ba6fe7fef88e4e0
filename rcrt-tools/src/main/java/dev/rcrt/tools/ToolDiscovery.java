package dev.rcrt.tools;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.ContextMatch;
import dev.rcrt.core.LoadProblem;
import dev.rcrt.core.LoadReport;
import dev.rcrt.core.Selector;
import dev.rcrt.core.ValidationException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Finds tools directly in the store, every time it is asked: no registry, no aggregated catalog,
 * so a tool breadcrumb written a moment ago is found on the next call.
 *
 * <p>Tools are the breadcrumbs of the {@link ToolDefinition#TOOL_SCHEMAS} whose last writer the
 * {@link ToolTrustPolicy} trusts; the others are reported as problems and never offered or run, and
 * they cannot shadow a trusted tool of the same name. When several trusted ones carry the same name,
 * the most recently written wins. Parsed definitions are cached by breadcrumb id and
 * version, so repeated discovery costs a store search, not a re-parse. Thread-safe.
 */
public final class ToolDiscovery {
  private static final int PAGE = 500;

  private static final int FIND_SCAN = 100;

  private final BreadcrumbStore store;
  private final ToolTrustPolicy policy;
  private final Map<String, ToolDefinition> parsed = new ConcurrentHashMap<>();
  private final Map<String, List<Selector>> byName = new ConcurrentHashMap<>();

  /** Discovery over {@code store} under {@link ToolTrustPolicy#defaults()}. */
  public ToolDiscovery(BreadcrumbStore store) {
    this(store, ToolTrustPolicy.defaults());
  }

  /** Discovery over {@code store}, offering only tools whose writers {@code policy} trusts. */
  public ToolDiscovery(BreadcrumbStore store, ToolTrustPolicy policy) {
    this.store = Objects.requireNonNull(store, "store");
    this.policy = Objects.requireNonNull(policy, "policy");
  }

  /**
   * Every tool in the store, one per name, sorted by name (a stable order keeps prompts
   * cacheable by providers).
   *
   * @return the tools, and a problem for each tool breadcrumb that could not be read (it is left
   *     out, and the rest are still offered)
   */
  public LoadReport<ToolDefinition> discover() {
    List<Breadcrumb> all = new ArrayList<>();
    for (String schema : ToolDefinition.TOOL_SCHEMAS) {
      all.addAll(searchAll(Selector.schema(schema)));
    }
    all.sort(Comparator.comparing(Breadcrumb::updatedAt).reversed());
    List<ToolDefinition> tools = new ArrayList<>();
    List<LoadProblem> problems = new ArrayList<>();
    Set<String> names = new HashSet<>();
    Set<String> seenIds = new HashSet<>();
    for (Breadcrumb b : all) {
      seenIds.add(b.id());
      if (!trusted(b)) {
        problems.add(new LoadProblem(b.id(), untrusted(b)));
        continue;
      }
      try {
        ToolDefinition tool = parse(b);
        if (names.add(tool.name())) {
          tools.add(tool);
        }
      } catch (ValidationException e) {
        problems.add(new LoadProblem(b.id(), e.getMessage()));
      }
    }
    parsed.keySet().retainAll(seenIds);
    tools.sort(Comparator.comparing(ToolDefinition::name));
    return new LoadReport<>(tools, problems);
  }

  /**
   * Why no tool named {@code name} is offered although a record with that name exists: the trust
   * policy's one-line reason for the newest such record, or empty when there is none.
   */
  public Optional<String> whyUntrusted(String name) {
    for (Selector selector : byName.computeIfAbsent(name, ToolDiscovery::selectors)) {
      for (Breadcrumb b : store.search(selector, FIND_SCAN, 0)) {
        String why = policy.whyUntrusted(b);
        if (why != null) {
          return Optional.of("tool '" + name + "' (breadcrumb '" + b.id() + "') was not run: " + why);
        }
      }
    }
    return Optional.empty();
  }

  /**
   * The tool named {@code name}, newest first across the tool schemas.
   *
   * @return empty if no tool breadcrumb has that name
   * @throws ValidationException if the newest breadcrumb with that name is malformed
   */
  public Optional<ToolDefinition> find(String name) {
    Objects.requireNonNull(name, "name");
    Breadcrumb newest = null;
    for (Selector selector : byName.computeIfAbsent(name, ToolDiscovery::selectors)) {
      for (Breadcrumb b : store.search(selector, FIND_SCAN, 0)) {
        if (trusted(b)) {
          if (newest == null || b.updatedAt().isAfter(newest.updatedAt())) {
            newest = b;
          }
          break;
        }
      }
    }
    return newest == null ? Optional.empty() : Optional.of(parse(newest));
  }

  /** The selectors that find a tool by name, one per tool schema; built once per name. */
  private static List<Selector> selectors(String name) {
    return ToolDefinition.TOOL_SCHEMAS.stream().map(s -> Selector.schema(s).withMatch(ContextMatch.eq("$.name", name))).toList();
  }

  private boolean trusted(Breadcrumb b) {
    return policy.whyUntrusted(b) == null;
  }

  private String untrusted(Breadcrumb b) {
    return "tool breadcrumb not offered and not run: " + policy.whyUntrusted(b);
  }

  private ToolDefinition parse(Breadcrumb b) {
    ToolDefinition cached = parsed.get(b.id());
    if (cached != null && cached.sourceVersion() == b.version()) {
      return cached;
    }
    ToolDefinition fresh = ToolDefinition.fromBreadcrumb(b);
    parsed.put(b.id(), fresh);
    return fresh;
  }

  private List<Breadcrumb> searchAll(Selector selector) {
    List<Breadcrumb> out = new ArrayList<>();
    for (int offset = 0; ; offset += PAGE) {
      List<Breadcrumb> page = store.search(selector, PAGE, offset);
      out.addAll(page);
      if (page.size() < PAGE) {
        return out;
      }
    }
  }
}
