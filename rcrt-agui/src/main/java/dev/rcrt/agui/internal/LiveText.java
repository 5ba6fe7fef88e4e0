package dev.rcrt.agui.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.agent.RunTextListener;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.jspecify.annotations.Nullable;

/**
 * One stream's text as the model writes it, woven into the events its run's records tell ({@link
 * RunEvents}). The executor hands the text over on its own thread ({@link #onText}); the stream's
 * thread sends it ({@link #sendStreamed}) as {@code TEXT_MESSAGE_START} and {@code
 * TEXT_MESSAGE_CONTENT} events under the message id its record will have ({@link
 * RunEvents#messageId}), each with an SSE id {@code live.<records told>.<round>.<characters sent>}:
 * a client that reconnects with it gets the events of the later records and the rest of that
 * text, from any process. When a message's record comes ({@link #send}), a message already
 * started is not started again: the record's text adds what did not stream yet, and its end ends it
 * with the record's id. A message whose records tell other text than streamed (not expected: both
 * are scrubbed alike) ends, and the record's text follows as a message of its own. Before the run's
 * end event, every message still open ends (a round cut short by an error).
 *
 * <p>{@link #onText} is thread-safe; the rest is the stream thread's.
 */
final class LiveText implements RunTextListener {
  private record Delta(int round, String text) {}

  /** A message started from streamed text: what the client has of it, and what this stream got. */
  private static final class Shown {
    final int round;
    /** The text the client has, when this stream sent all of it; null for a message a reconnecting client had started. */
    final @Nullable StringBuilder text;
    int chars;
    int received;

    Shown(int round, @Nullable StringBuilder text, int chars) {
      this.round = round;
      this.text = text;
      this.chars = chars;
    }
  }

  private final String runId;
  private final Runnable changed;
  private final ConcurrentLinkedQueue<Delta> queue = new ConcurrentLinkedQueue<>();
  private final Map<String, Shown> open = new HashMap<>();
  /** Messages whose record's text came or that ended: text that streams for them later is dropped. */
  private final Set<String> told = new HashSet<>();
  /** Messages whose record told other text than streamed: the id the record's text went out under. */
  private final Map<String, String> renamed = new HashMap<>();

  /**
   * @param runId the run followed
   * @param changed wakes the stream's thread
   */
  LiveText(String runId, Runnable changed) {
    this.runId = runId;
    this.changed = changed;
  }

  /** A stream that goes on where a client's last event, one of text as it streamed, left off: it has {@code chars} of round {@code round}'s text. */
  void resume(int round, int chars) {
    open.put(RunEvents.messageId(runId, round), new Shown(round, null, chars));
  }

  @Override
  public void onText(int round, String delta) {
    queue.add(new Delta(round, delta));
    changed.run();
  }

  /**
   * The rounds whose first words wait to be sent: the stream reads the run's records before it
   * starts their messages (the records before a round are written when it is asked, however late
   * their events come), and starts no other.
   */
  Set<Integer> starting() {
    Set<Integer> rounds = new HashSet<>();
    for (Delta d : queue) {
      String id = RunEvents.messageId(runId, d.round());
      if (!open.containsKey(id) && !told.contains(id)) {
        rounds.add(d.round());
      }
    }
    return rounds;
  }

  /**
   * Sends the text that streamed in since the last call, up to the first words of a round not in
   * {@code startable}, which wait for the next call.
   *
   * @param seen how many of the run's records the stream has told: the place its ids give
   * @param startable the rounds whose messages may start: {@link #starting()} before the records were read
   * @return whether text was left waiting
   */
  boolean sendStreamed(AgUiEndpoint.Events out, int seen, Set<Integer> startable) throws IOException {
    Delta d;
    while ((d = queue.peek()) != null) {
      String id = RunEvents.messageId(runId, d.round());
      Shown shown = open.get(id);
      if (shown == null && !told.contains(id) && !startable.contains(d.round())) {
        return true;
      }
      queue.poll();
      if (told.contains(id)) {
        continue;
      }
      if (shown == null) {
        shown = new Shown(d.round(), new StringBuilder(), 0);
        open.put(id, shown);
        out.send(liveId(seen, shown), RunEvents.event("TEXT_MESSAGE_START").put("messageId", id).put("role", "assistant"));
      }
      shown.received += d.text().length();
      int fresh = shown.received - shown.chars; // what the client lacks of this text (a resumed stream's first text repeats what it has)
      if (fresh <= 0) {
        continue;
      }
      String part = d.text().substring(Math.max(0, d.text().length() - fresh));
      shown.chars += part.length();
      if (shown.text != null) {
        shown.text.append(part);
      }
      out.send(liveId(seen, shown), RunEvents.event("TEXT_MESSAGE_CONTENT").put("messageId", id).put("delta", part));
    }
    return false;
  }

  private static String liveId(int seen, Shown shown) {
    return "live." + seen + "." + shown.round + "." + shown.chars;
  }

  /** Sends one event of the records, with what streamed of its message taken into account. */
  void send(RunEvents.Event e, AgUiEndpoint.Events out) throws IOException {
    ObjectNode json = e.json();
    String type = json.path("type").asText();
    String id = json.path("messageId").asText(null);
    switch (type) {
      case "TEXT_MESSAGE_START" -> {
        told.add(id);
        if (!open.containsKey(id)) {
          out.send(e.id(), json);
        }
      }
      case "TEXT_MESSAGE_CONTENT" -> {
        Shown shown = open.get(id);
        String full = json.path("delta").asText();
        if (shown == null) {
          out.send(e.id(), renamed.containsKey(id) ? json.deepCopy().put("messageId", renamed.get(id)) : json);
        } else if (shown.text == null ? full.length() >= shown.chars : full.startsWith(shown.text.toString())) {
          if (full.length() > shown.chars) {
            out.send(e.id(), json.deepCopy().put("delta", full.substring(shown.chars)));
          }
          shown.chars = full.length();
        } else {
          open.remove(id);
          out.send(null, RunEvents.event("TEXT_MESSAGE_END").put("messageId", id));
          String own = id + ".recorded";
          renamed.put(id, own);
          out.send(null, RunEvents.event("TEXT_MESSAGE_START").put("messageId", own).put("role", "assistant"));
          out.send(e.id(), json.deepCopy().put("messageId", own));
        }
      }
      case "TEXT_MESSAGE_END" -> {
        open.remove(id);
        out.send(e.id(), renamed.containsKey(id) ? json.deepCopy().put("messageId", renamed.get(id)) : json);
      }
      case "RUN_FINISHED", "RUN_ERROR" -> {
        endOpen(out);
        out.send(e.id(), json);
      }
      default -> out.send(e.id(), json);
    }
  }

  /** Ends the messages started from streamed text whose records have not come. */
  private void endOpen(AgUiEndpoint.Events out) throws IOException {
    List<String> ids = new ArrayList<>(open.keySet());
    ids.sort(null);
    for (String id : ids) {
      told.add(id);
      out.send(null, RunEvents.event("TEXT_MESSAGE_END").put("messageId", id));
    }
    open.clear();
  }
}
