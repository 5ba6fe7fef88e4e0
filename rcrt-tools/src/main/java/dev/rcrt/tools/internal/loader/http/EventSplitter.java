package dev.rcrt.tools.internal.loader.http;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Predicate;

/**
 * Splits a {@code text/event-stream} body into events as its bytes arrive, as the WHATWG HTML
 * standard's event-stream format reads it: lines end in CR LF, LF or CR; a blank line ends an
 * event; an event's data is its {@code data} lines' values (one leading space dropped) joined by
 * LF; an event without data lines is no event. Only data is read; other fields are skipped. A line
 * is split at its end byte, which never occurs inside a UTF-8 character, so chunks may split
 * characters. Not thread-safe: one reader feeds it.
 */
final class EventSplitter {
  private final Predicate<String> stop;
  private final ByteArrayOutputStream line = new ByteArrayOutputStream();
  private final StringBuilder data = new StringBuilder();
  private boolean hasData;
  private boolean afterCr;

  /** @param stop asked with each event's data; true ends the reading */
  EventSplitter(Predicate<String> stop) {
    this.stop = stop;
  }

  /**
   * Feeds {@code length} bytes of {@code chunk} from {@code offset}.
   *
   * @return the bytes of the chunk up to and including the line end of the event {@code stop}
   *     accepted, or -1 when no event stopped the reading
   */
  int feed(byte[] chunk, int offset, int length) {
    for (int i = offset; i < offset + length; i++) {
      byte b = chunk[i];
      if (b == '\n' && afterCr) {
        afterCr = false; // the LF of a CR LF: that line has ended
        continue;
      }
      afterCr = b == '\r';
      if (b == '\n' || b == '\r') {
        if (lineEnded()) {
          return i - offset + 1;
        }
      } else {
        line.write(b);
      }
    }
    return -1;
  }

  /** Takes the line just ended; true when it ended an event that stops the reading. */
  private boolean lineEnded() {
    String text = line.toString(StandardCharsets.UTF_8);
    line.reset();
    if (text.isEmpty()) {
      boolean dispatch = hasData;
      String value = data.toString();
      data.setLength(0);
      hasData = false;
      return dispatch && stop.test(value);
    }
    int colon = text.indexOf(':');
    String field = colon < 0 ? text : text.substring(0, colon);
    if (field.equals("data")) {
      String value = colon < 0 ? "" : text.substring(colon + 1);
      if (value.startsWith(" ")) {
        value = value.substring(1);
      }
      if (hasData) {
        data.append('\n');
      }
      data.append(value);
      hasData = true;
    }
    return false;
  }
}
