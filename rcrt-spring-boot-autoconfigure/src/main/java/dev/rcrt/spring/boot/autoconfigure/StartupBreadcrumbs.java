package dev.rcrt.spring.boot.autoconfigure;

import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbFiles;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.LoadProblem;
import dev.rcrt.core.LoadReport;
import dev.rcrt.tools.BuiltinTools;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.ResourcePatternResolver;

/**
 * The breadcrumbs written to the store as the host at start ({@code rcrt.breadcrumbs.*}): the SDK's
 * builtin tools and default chat agent, then every record of the configured resource locations, in
 * the order given (a pattern's matches sorted by name), so a later record with the same id wins.
 * Records already stored unchanged are not written again. The bean holds nothing: the tool runner
 * and the agent executor take it as a parameter only so that Spring creates them after the load.
 */
final class StartupBreadcrumbs {
  private static final Logger LOG = LoggerFactory.getLogger(StartupBreadcrumbs.class);

  private StartupBreadcrumbs() {}

  /**
   * Loads {@code settings} into {@code store}.
   *
   * @throws IllegalStateException naming every location or record that did not load, when {@code
   *     fail-on-error} is set (the default); otherwise each is logged at WARN and skipped
   */
  static StartupBreadcrumbs load(BreadcrumbStore store, RcrtProperties.Breadcrumbs settings, ResourcePatternResolver resources) {
    int written = 0;
    if (settings.isSeedBuiltins()) {
      written += BuiltinTools.seed(store).size();
      BreadcrumbFiles.upsert(store, AgentDefinition.defaultChatAgent());
      written++;
    }
    List<LoadProblem> problems = new ArrayList<>();
    for (String location : settings.getLocations()) {
      for (LoadReport<BreadcrumbCreate> report : read(location, resources)) {
        problems.addAll(report.problems());
        for (BreadcrumbCreate create : report.items()) {
          BreadcrumbFiles.upsert(store, create);
          written++;
        }
      }
    }
    if (!problems.isEmpty()) {
      if (settings.isFailOnError()) {
        throw new IllegalStateException("rcrt.breadcrumbs.locations: " + problems.size() + " did not load: " + problems
            + " (fix them, or set rcrt.breadcrumbs.fail-on-error=false to start without them)");
      }
      problems.forEach(p -> LOG.warn("rcrt.breadcrumbs.locations: skipped {}", p));
    }
    LOG.debug("{} breadcrumbs loaded at start", written);
    return new StartupBreadcrumbs();
  }

  private static List<LoadReport<BreadcrumbCreate>> read(String location, ResourcePatternResolver resources) {
    Resource[] found;
    try {
      found = resources.getResources(location);
    } catch (IOException e) {
      return List.of(failed(location, "cannot be resolved: " + e.getMessage()));
    }
    List<Resource> existing = Arrays.stream(found).filter(Resource::exists)
        .sorted(Comparator.comparing(r -> String.valueOf(r.getFilename()))).toList();
    if (existing.isEmpty()) {
      return List.of(failed(location, "no such resource"));
    }
    List<LoadReport<BreadcrumbCreate>> reports = new ArrayList<>();
    for (Resource r : existing) {
      String source = r.getDescription();
      try (InputStream in = r.getInputStream()) {
        reports.add(BreadcrumbFiles.parse(source, in));
      } catch (IOException e) {
        reports.add(failed(source, "cannot be read: " + e.getMessage()));
      }
    }
    return reports;
  }

  private static LoadReport<BreadcrumbCreate> failed(String source, String message) {
    return new LoadReport<>(List.of(), List.of(new LoadProblem(source, message)));
  }
}
