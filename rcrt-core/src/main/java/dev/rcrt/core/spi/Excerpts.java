package dev.rcrt.core.spi;

/** Short one-line excerpts of bodies for error messages, and of untrusted text for log lines. */
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

  /**
   * Text someone else chose (a record's writer, a remote tool's name), as a log line may show it:
   * every character outside printable ASCII written {@code \\uXXXX} (so no forged line, terminal
   * escape, bidirectional override or lookalike letter passes as is), at most {@code max}
   * characters of {@code text} then {@code …}.
   */
  public static String escaped(String text, int max) {
    StringBuilder out = new StringBuilder();
    text.chars().limit(max).forEach(c -> out.append(c >= 0x20 && c < 0x7f ? String.valueOf((char) c) : String.format("\\u%04x", c)));
    return text.length() > max ? out.append('…').toString() : out.toString();
  }
}
