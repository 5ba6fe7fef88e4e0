package dev.rcrt.core;

import java.util.List;

/**
 * What a load of breadcrumb files produced: everything that loaded, and a problem per file or
 * element that did not. One bad file never stops the others.
 *
 * @param items what loaded, in file order (files sorted by path, elements in array order); copied
 * @param problems what did not, in the same order; copied
 * @param sources where each item came from, such as {@code tools.json[2]}, one per item; or empty
 *     when the producer does not track sources; copied
 * @param <T> {@link BreadcrumbCreate} when only read, {@link Breadcrumb} when stored
 */
public record LoadReport<T>(List<T> items, List<LoadProblem> problems, List<String> sources) {
  /**
   * Copies the lists.
   *
   * @throws IllegalArgumentException if sources are given but not one per item
   */
  public LoadReport {
    items = List.copyOf(items);
    problems = List.copyOf(problems);
    sources = List.copyOf(sources);
    if (!sources.isEmpty() && sources.size() != items.size()) {
      throw new IllegalArgumentException(sources.size() + " sources for " + items.size() + " items");
    }
  }

  /** A report that does not track sources. */
  public LoadReport(List<T> items, List<LoadProblem> problems) {
    this(items, problems, List.of());
  }

  /** Whether every file and element loaded. */
  public boolean isClean() {
    return problems.isEmpty();
  }
}
