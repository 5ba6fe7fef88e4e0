package dev.rcrt.tools;

import dev.rcrt.tools.internal.SecretValues;
import java.util.Objects;

/**
 * A text still being written (a model's answer as it streams), scrubbed as it grows of every secret
 * value its runner knows ({@link ToolRunner#streamScrubber()}): {@link #add} returns what can be
 * shown now, holding back an ending that begins a secret value the text to come could complete, so
 * a value split across fragments is never shown in part; {@link #end} returns the rest. Together
 * the parts are the whole text as {@link ToolRunner#scrub(String)} gives it.
 *
 * <p>Each fragment is scanned with what was held back before it, which is shorter than the longest
 * secret value: the cost of a fragment does not grow with the text. Not thread-safe: one stream,
 * one writer (or the caller's lock).
 */
public final class StreamScrubber {
  private final SecretValues known;
  /** Raw text not shown yet: an ending that begins a secret value (no whole value, so nothing in it is replaced). */
  private final StringBuilder pending = new StringBuilder();

  StreamScrubber(SecretValues known) {
    this.known = known;
  }

  /**
   * Adds {@code fragment}; returns what of the text can be shown now beyond what earlier calls
   * returned, scrubbed (empty when all of it is held back).
   */
  public String add(String fragment) {
    pending.append(Objects.requireNonNull(fragment, "fragment"));
    String clean = known.scrub(pending.toString());
    int held = known.heldBack(clean);
    pending.delete(0, pending.length() - held);
    return clean.substring(0, clean.length() - held);
  }

  /** The text is complete: returns what was held back, scrubbed; the scrubber is empty again. */
  public String end() {
    String rest = known.scrub(pending.toString());
    pending.setLength(0);
    return rest;
  }
}
