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
import java.util.function.Predicate;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Finds tools directly in the store, every time it is asked: no registry, no aggregated catalog,
 * so a tool breadcrumb written a moment ago is found on the next call.
 *
 * <p>Tools are the breadcrumbs of the {@link ToolDefinition#TOOL_SCHEMAS} whose last writer the
 * {@link ToolTrustPolicy} trusts; the others are reported as problems and never offered or run, and
 * they cannot shadow a trusted tool of the same name. When several trusted ones carry the same name,
 * the most recently written wins, except that a tool this process cannot run (an implementation
 * type no runtime on the class path serves) never displaces one it can run. Parsed definitions are cached by breadcrumb id and
 * version, so repeated discovery costs a store search, not a re-parse. Thread-safe.
 */
public final class ToolDiscovery {
  private static final int PAGE = 500;

  private static final int FIND_SCAN = 100;

  private final BreadcrumbStore store;
  private final ToolTrustPolicy policy;
  private final Map<String, ToolDefinition> parsed = new ConcurrentHashMap<>();
  private final Map<String, List<Selector>> byName = new ConcurrentHashMap<>();
  private final Predicate<ToolDefinition> runnable;

  /** Discovery over {@code store} under {@link ToolTrustPolicy#defaults()}. */
  public ToolDiscovery(BreadcrumbStore store) {
    this(store, ToolTrustPolicy.defaults());
  }

  /** Discovery over {@code store}, offering only tools whose writers {@code policy} trusts. */
  public ToolDiscovery(BreadcrumbStore store, ToolTrustPolicy policy) {
    this(store, policy, tool -> true);
  }

  /**
   * Discovery over {@code store} under {@code policy}, where, among the tools of one name, the
   * newest that {@code runnable} accepts wins over newer ones it does not (a {@link ToolRunner}'s
   * discovery passes "an implementation type it serves"); a name with no runnable tool still has
   * its newest. {@code runnable} must be cheap and thread-safe.
   */
  public ToolDiscovery(BreadcrumbStore store, ToolTrustPolicy policy, Predicate<ToolDefinition> runnable) {
    this.store = Objects.requireNonNull(store, "store");
    this.policy = Objects.requireNonNull(policy, "policy");
    this.runnable = Objects.requireNonNull(runnable, "runnable");
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
    Map<String, ToolDefinition> byTool = new java.util.HashMap<>();
    List<LoadProblem> problems = new ArrayList<>();
    Set<String> seenIds = new HashSet<>();
    for (Breadcrumb b : all) {
      seenIds.add(b.id());
      if (!trusted(b)) {
        problems.add(new LoadProblem(b.id(), untrusted(b)));
        continue;
      }
      try {
        ToolDefinition tool = parse(b);
        ToolDefinition newer = byTool.get(tool.name());
        if (newer == null || !runnable.test(newer) && runnable.test(tool)) {
          byTool.put(tool.name(), tool);
        }
      } catch (ValidationException e) {
        problems.add(new LoadProblem(b.id(), e.getMessage()));
      }
    }
    parsed.keySet().retainAll(seenIds);
    List<ToolDefinition> tools = new ArrayList<>(byTool.values());
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
   * The tool named {@code name}: the newest across the tool schemas, or, when this discovery
   * cannot run that one, the newest it can run.
   *
   * @return empty if no trusted tool breadcrumb has that name
   * @throws ValidationException if the newest breadcrumb with that name is malformed
   */
  public Optional<ToolDefinition> find(String name) {
    Objects.requireNonNull(name, "name");
    List<Breadcrumb> trustedOnes = new ArrayList<>();
    for (Selector selector : byName.computeIfAbsent(name, ToolDiscovery::selectors)) {
      for (Breadcrumb b : store.search(selector, FIND_SCAN, 0)) {
        if (trusted(b)) {
          trustedOnes.add(b);
        }
      }
    }
    if (trustedOnes.isEmpty()) {
      return Optional.empty();
    }
    trustedOnes.sort(Comparator.comparing(Breadcrumb::updatedAt).reversed());
    ToolDefinition newest = parse(trustedOnes.get(0));
    if (runnable.test(newest)) {
      return Optional.of(newest);
    }
    for (Breadcrumb older : trustedOnes.subList(1, trustedOnes.size())) {
      try {
        ToolDefinition tool = parse(older);
        if (runnable.test(tool)) {
          return Optional.of(tool);
        }
      } catch (ValidationException e) {
        // an older malformed record is no candidate
      }
    }
    return Optional.of(newest);
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
