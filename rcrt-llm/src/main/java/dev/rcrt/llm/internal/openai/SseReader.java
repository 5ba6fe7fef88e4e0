package dev.rcrt.llm.internal.openai;

import dev.rcrt.core.TimeSource;
import dev.rcrt.core.spi.BoundedLines;
import dev.rcrt.llm.LlmErrorCode;
import dev.rcrt.llm.LlmException;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * Server-sent events, per the WHATWG specification: {@code data:} lines (one leading space
 * dropped) accumulate, joined with newlines, until a blank line dispatches the event; lines starting
 * with {@code :} are comments (OpenRouter's {@code : OPENROUTER PROCESSING} keep-alive); other
 * fields ({@code event}, {@code id}, {@code retry}) are ignored. Data still pending at the end of
 * the stream is dispatched.
 *
 * <p>Two clocks bound the stream: the gap between events ({@code idle}: comments do not count, so
 * a server that only sends keep-alives times out) and the whole stream ({@code deadlineNanos}).
 */
public final class SseReader {
  private SseReader() {}

  /**
   * Feeds each event's data to {@code onData}, in order, until the body ends.
   *
   * @throws LlmException {@code llm_timeout} when no event comes within {@code idle} or the stream
   *     outlives {@code deadlineNanos} (on {@code time}), {@code llm_bad_response}
   *     when the body passes its size cap, {@code llm_unreachable} when it breaks off
   */
  public static void read(
      BoundedLines lines, Duration idle, long deadlineNanos, TimeSource time, String endpoint, Consumer<String> onData) {
    StringBuilder data = null;
    long lastEvent = time.nanoTime();
    while (true) {
      long now = time.nanoTime();
      long idleLeft = lastEvent + idle.toNanos() - now;
      long totalLeft = deadlineNanos - now;
      String line;
      try {
        line = lines.next(Duration.ofNanos(Math.max(0, Math.min(idleLeft, totalLeft))), time);
      } catch (BoundedLines.Failure f) {
        throw failure(f, idleLeft < totalLeft, idle, endpoint);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new LlmException(LlmErrorCode.LLM_UNREACHABLE, "interrupted while reading the stream from " + endpoint, 0, null, false, e);
      }
      if (line == null) {
        break;
      }
      if (line.isEmpty()) {
        if (data != null) {
          onData.accept(data.toString());
          data = null;
          lastEvent = time.nanoTime();
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

  private static LlmException failure(BoundedLines.Failure f, boolean idleFirst, Duration idle, String endpoint) {
    return switch (f.kind()) {
      case WAITED_TOO_LONG -> idleFirst
          ? new LlmException(LlmErrorCode.LLM_TIMEOUT, "the stream from " + endpoint + " sent no event for " + idle.toMillis()
              + " ms (keep-alive comments do not count); it was closed", 0, null, true, null)
          : new LlmException(LlmErrorCode.LLM_TIMEOUT, "the stream from " + endpoint + " did not finish within its time limit; it was closed",
              0, null, true, null);
      case TOO_LARGE -> new LlmException(LlmErrorCode.LLM_BAD_RESPONSE, "the stream from " + endpoint + " failed: " + f.getMessage(), 0, null, false, null);
      case BROKEN -> new LlmException(LlmErrorCode.LLM_UNREACHABLE, "the stream from " + endpoint + " broke: " + f.getMessage(), 0, null, true, null);
    };
  }
}
