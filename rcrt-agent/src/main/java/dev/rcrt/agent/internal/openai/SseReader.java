package dev.rcrt.agent.internal.openai;

import java.util.Iterator;
import java.util.function.Consumer;

/**
 * Server-sent events, per the WHATWG specification: {@code data:} lines (one leading space
 * dropped) accumulate, joined with newlines, until a blank line dispatches the event; lines starting
 * with {@code :} are comments (OpenRouter's {@code : OPENROUTER PROCESSING} keep-alive); other
 * fields ({@code event}, {@code id}, {@code retry}) are ignored. Data still pending at the end of
 * the stream is dispatched.
 */
public final class SseReader {
  private SseReader() {}

  /** Feeds each event's data to {@code onData}, in order. */
  public static void read(Iterator<String> lines, Consumer<String> onData) {
    StringBuilder data = null;
    while (lines.hasNext()) {
      String line = lines.next();
      if (line.isEmpty()) {
        if (data != null) {
          onData.accept(data.toString());
          data = null;
        }
        continue;
      }
      if (line.startsWith(":")) {
        continue;
      }
      int colon = line.indexOf(':');
      String field = colon < 0 ? line : line.substring(0, colon);
      String value = colon < 0 ? "" : line.substring(colon + 1);
      if (value.startsWith(" ")) {
        value = value.substring(1);
      }
      if (field.equals("data")) {
        data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
      }
    }
    if (data != null) {
      onData.accept(data.toString());
    }
  }
}
