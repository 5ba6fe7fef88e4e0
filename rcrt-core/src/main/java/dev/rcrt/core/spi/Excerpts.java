package dev.rcrt.core.spi;

/** Short one-line excerpts of bodies for error messages. */
public final class Excerpts {
  private static final int MAX = 200;

  private Excerpts() {}

  /** {@code text} on one line, at most 200 characters then {@code …}; {@code (empty body)} when blank. */
  public static String of(String text) {
    return of(text, MAX);
  }

  /** {@code text} on one line, at most {@code max} characters then {@code …}; {@code (empty body)} when blank. */
  public static String of(String text, int max) {
    String flat = text.replaceAll("\\s+", " ").trim();
    if (flat.isEmpty()) {
      return "(empty body)";
    }
    return flat.length() <= max ? flat : flat.substring(0, max) + "…";
  }
}
