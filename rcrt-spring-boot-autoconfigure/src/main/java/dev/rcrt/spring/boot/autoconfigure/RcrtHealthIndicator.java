package dev.rcrt.spring.boot.autoconfigure;

import dev.rcrt.core.LoadReport;
import dev.rcrt.core.Selector;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolRunner;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Health of the SDK in this application: DOWN when the store does not answer a one-record search;
 * otherwise UP with the store's type, how many tools the runner trusts, and each trusted tool it
 * cannot run with why (a runtime missing from the class path, a record without an endpoint), so a
 * tool type whose runtime did not load shows here rather than at its first call, and how many Java
 * tool calls were abandoned at their deadline while their code still runs ({@link
 * ToolRunner#abandonedCalls()}: above zero, a tool spins). Failures are
 * described by their message only: no stack trace, no connection string.
 */
final class RcrtHealthIndicator implements HealthIndicator {
  private final ToolRunner runner;

  RcrtHealthIndicator(ToolRunner runner) {
    this.runner = runner;
  }

  @Override
  public Health health() {
    try {
      runner.store().search(Selector.all(), 1, 0);
    } catch (RuntimeException e) {
      return Health.down().withDetail("store", "does not answer: " + runner.scrub(String.valueOf(e.getMessage()))).build();
    }
    LoadReport<ToolDefinition> tools = runner.discovery().discover();
    Map<String, List<String>> cannotRun = new TreeMap<>();
    for (ToolDefinition tool : tools.items()) {
      List<String> problems = runner.problems(tool);
      if (!problems.isEmpty()) {
        cannotRun.put(tool.name(), problems);
      }
    }
    return Health.up()
        .withDetail("store", runner.store().getClass().getSimpleName())
        .withDetail("tools", tools.items().size())
        .withDetail("toolsThatCannotRun", cannotRun)
        .withDetail("recordsSkipped", tools.problems().size())
        .withDetail("abandonedToolCalls", runner.abandonedCalls())
        .build();
  }
}
