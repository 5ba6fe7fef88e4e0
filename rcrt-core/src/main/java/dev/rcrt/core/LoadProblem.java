package dev.rcrt.core;

import java.util.Objects;

/**
 * A breadcrumb file, or one element of it, that could not be loaded.
 *
 * @param source the file path or resource name, with {@code [index]} for an array element
 * @param message what is wrong, for example the JSON parse error with line and column
 */
public record LoadProblem(String source, String message) {
  /** Validates required fields. */
  public LoadProblem {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(message, "message");
  }

  @Override
  public String toString() {
    return source + ": " + message;
  }
}
