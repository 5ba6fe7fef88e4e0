package dev.rcrt.core;

import java.util.List;

/**
 * What a load of breadcrumb files produced: everything that loaded, and a problem per file or
 * element that did not. One bad file never stops the others.
 *
 * @param items what loaded, in file order (files sorted by path, elements in array order); copied
 * @param problems what did not, in the same order; copied
 * @param <T> {@link BreadcrumbCreate} when only read, {@link Breadcrumb} when stored
 */
public record LoadReport<T>(List<T> items, List<LoadProblem> problems) {
  /** Copies the lists. */
  public LoadReport {
    items = List.copyOf(items);
    problems = List.copyOf(problems);
  }

  /** Whether every file and element loaded. */
  public boolean isClean() {
    return problems.isEmpty();
  }
}
