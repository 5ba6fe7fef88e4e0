package dev.rcrt.core.spi;

/** Short one-line excerpts of bodies for error messages. */
public final class Excerpts {
  private static final int MAX = 200;

  private Excerpts() {}

  /** {@code text} on one line, at most 200 characters then {@code …}; {@code (empty body)} when blank. */
  public static String of(String text) {
    String flat = text.replaceAll("\\s+", " ").trim();
    if (flat.isEmpty()) {
      return "(empty body)";
    }
    return flat.length() <= MAX ? flat : flat.substring(0, MAX) + "…";
  }
}
