package dev.rcrt.mcp.internal;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStreamableServerTransport;
import jakarta.servlet.AsyncContext;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * One resumable server-sent event stream of an MCP session (streamable HTTP, MCP 2025-11-25): the
 * response stream of one request, or the session's listening stream. Every event gets an id,
 * {@code <stream>_<n>} counting from the priming event {@code _0} (an id, the {@code retry} field
 * and empty data, sent first on every connection); every message sent is kept, so a client whose
 * connection closed (the server's polling, a dropped network) gets the ones it missed when it comes
 * back with {@code Last-Event-ID}, then the rest live. What is kept is bounded ({@link
 * #MAX_KEPT_BYTES}): the oldest events go first, and a resume from before them is refused.
 *
 * <p>A stream may also be kept beyond this process ({@link Keeper}): a call's stream is written to
 * the store as it is sent, so that another process of a shared store can follow it ({@link
 * #follower}), picking up after the event a client names.
 *
 * <p>The SDK's session sends through this object whether a connection is attached or not. One
 * connection is attached at a time; a new one replaces the old. Thread-safe.
 */
final class SseStream implements McpStreamableServerTransport {
  private static final Logger LOG = LoggerFactory.getLogger(SseStream.class);

  /** The most message text one stream keeps for clients that come back: 8 MiB. */
  static final int MAX_KEPT_BYTES = 8 * 1024 * 1024;

  /** A connection: the servlet's asynchronous response and its writer. */
  record Connection(AsyncContext async, PrintWriter writer) {}

  /**
   * Where a stream's events are kept beyond this process, told under the stream's lock before a
   * client may see the event (so whatever a client saw can be found there). Each method returns
   * false once it cannot keep the stream: nothing more of it is kept there then.
   */
  interface Keeper {
    /** Keeps nothing: a stream of this process only. */
    Keeper NONE = new Keeper() {
      @Override
      public boolean kept(SseStream stream, long seq, @Nullable String data, boolean last) {
        return true;
      }

      @Override
      public void dropped(SseStream stream, long seq) {}

      @Override
      public void forget(SseStream stream, long lastSeq) {}
    };

    /**
     * Keeps event {@code seq}: the priming event (0, no data), a message, or the end of a stream that
     * closed without its response (no data, {@code last}).
     *
     * @param last whether the stream sends nothing after it
     */
    boolean kept(SseStream stream, long seq, @Nullable String data, boolean last);

    /** The stream no longer keeps event {@code seq} (its bound): neither does this keeper. */
    void dropped(SseStream stream, long seq);

    /** The stream is forgotten in this process (its window passed): its events up to {@code lastSeq} go. */
    void forget(SseStream stream, long lastSeq);
  }

  private record Event(long seq, String data) {}

  private final String id;
  private final String sessionId;
  private final McpJsonMapper json;
  private final long retryMillis;
  private final Consumer<SseStream> onComplete;
  private final Keeper keeper;
  private boolean keeping = true;
  private boolean answered;
  private final ArrayDeque<Event> kept = new ArrayDeque<>();
  private long keptBytes;
  private long sent; // the last event's number
  private long dropped; // the last number no longer kept
  private @Nullable Connection live;
  private int attaches;
  private boolean complete;

  /**
   * @param id unguessable, unique among the server's streams
   * @param retry what the priming event tells the client to wait before it reconnects
   * @param onComplete told once, when the stream has sent its last event, before its connection
   *     is completed
   */
  SseStream(String id, String sessionId, McpJsonMapper json, Duration retry, Consumer<SseStream> onComplete) {
    this(id, sessionId, json, retry, onComplete, Keeper.NONE, 0);
  }

  /**
   * A stream whose events are also kept by {@code keeper}; the priming event is kept at once.
   *
   * @param sessionId the session's id as its client sends it
   */
  static SseStream kept(String id, String sessionId, McpJsonMapper json, Duration retry, Consumer<SseStream> onComplete, Keeper keeper) {
    SseStream stream = new SseStream(id, sessionId, json, retry, onComplete, keeper, 0);
    synchronized (stream) {
      stream.keeping = keeper.kept(stream, 0, null, false);
    }
    return stream;
  }

  /**
   * A stream another process sends, followed here from where it is kept: it starts after event
   * {@code after} (the one a client came back with), and {@link #follow} adds the events that come.
   */
  static SseStream follower(String id, String sessionId, McpJsonMapper json, Duration retry, Consumer<SseStream> onComplete, long after) {
    return new SseStream(id, sessionId, json, retry, onComplete, Keeper.NONE, after);
  }

  private SseStream(String id, String sessionId, McpJsonMapper json, Duration retry, Consumer<SseStream> onComplete, Keeper keeper,
      long after) {
    this.id = id;
    this.sessionId = sessionId;
    this.json = json;
    this.retryMillis = retry.toMillis();
    this.onComplete = onComplete;
    this.keeper = keeper;
    this.sent = after;
    this.dropped = after;
  }

  String id() {
    return id;
  }

  String sessionId() {
    return sessionId;
  }

  /** The number in {@code eventId} if it names an event of this stream, else -1. */
  long seqOf(String eventId) {
    return seqOf(id, eventId);
  }

  /** The number in {@code eventId} if it names an event of stream {@code streamId}, else -1. */
  static long seqOf(String streamId, String eventId) {
    if (!eventId.startsWith(streamId + "_")) {
      return -1;
    }
    try {
      long seq = Long.parseLong(eventId.substring(streamId.length() + 1));
      return seq < 0 ? -1 : seq;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** The stream id in {@code eventId}, {@code <stream>_<n>}; null when it has no such shape. */
  static @Nullable String streamOf(String eventId) {
    int at = eventId.lastIndexOf('_');
    return at <= 0 ? null : eventId.substring(0, at);
  }

  /**
   * Attaches {@code connection} after the event numbered {@code after}: the priming event, every
   * kept event after it, then the rest as they are sent; a complete stream's connection is
   * completed once its events are out.
   *
   * @param attached told the connection's number (1 for the stream's first, 2 for the next...)
   *     once it is the live one and before anything is written on it, under the stream's lock: a
   *     hold timer set there cannot miss a connection whose client already read from it
   * @return false when events after {@code after} are no longer kept, or {@code after} was never sent
   *     (nothing is written then)
   */
  boolean attach(Connection connection, long after, java.util.function.IntConsumer attached) {
    Connection old;
    synchronized (this) {
      if (after > sent || after < dropped) {
        return false;
      }
      old = live;
      live = connection;
      attaches++;
      attached.accept(attaches);
      try {
        write(connection, "id: " + id + "_" + after + "\nretry: " + retryMillis + "\ndata: \n\n");
        for (Event e : kept) {
          if (e.seq > after) {
            write(connection, event(e));
          }
        }
        if (complete) {
          live = null;
          end(connection);
        }
      } catch (IOException gone) {
        live = null;
        end(connection);
      }
    }
    if (old != null) {
      end(old);
    }
    return true;
  }

  /** Closes the live connection, if any, keeping the stream for the client's return. */
  void release() {
    Connection was;
    synchronized (this) {
      was = live;
      live = null;
    }
    if (was != null) {
      end(was);
    }
  }

  /** Closes {@code connection} if it is still the live one, keeping the stream for the client's return (SSE polling). */
  void release(Connection connection) {
    synchronized (this) {
      if (live != connection) {
        return;
      }
      live = null;
    }
    end(connection);
  }

  /** Writes an SSE comment to the live connection, if any; one that fails is let go (the client went away). */
  void comment() {
    Connection gone = null;
    synchronized (this) {
      if (live != null) {
        try {
          write(live, ": keep-alive\n\n");
        } catch (IOException e) {
          gone = live;
          live = null;
        }
      }
    }
    if (gone != null) {
      end(gone);
    }
  }

  /** Forgets {@code connection} if it is the live one: the client went away. */
  void lost(Connection connection) {
    synchronized (this) {
      if (live == connection) {
        live = null;
      }
    }
  }

  synchronized boolean isComplete() {
    return complete;
  }

  /** Whether a connection is attached now. */
  synchronized boolean attached() {
    return live != null;
  }

  @Override
  public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
    return sendMessage(message, null);
  }

  /** Keeps {@code message} as the next event and writes it to the live connection, if any; the SDK's id is not used. */
  @Override
  public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message, @Nullable String messageId) {
    return Mono.fromRunnable(() -> {
      String data;
      try {
        data = json.writeValueAsString(message);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      // a call's stream ends with its response: whoever follows it elsewhere knows it is over
      append(data, message instanceof McpSchema.JSONRPCResponse && id.startsWith("r"));
    });
  }

  /**
   * Adds event {@code seq} of a followed stream ({@link #follower}), as its sender kept it; events
   * must come in order, with no gap. Null data ends the stream without an event (its sender closed
   * it without a response).
   */
  void follow(long seq, @Nullable String data, boolean last) {
    synchronized (this) {
      if (seq != sent + 1 || complete) {
        throw new IllegalStateException("stream " + id + ": event " + seq + " follows " + sent);
      }
    }
    if (data != null) {
      append(data, last);
    }
    if (last) {
      close();
    }
  }

  private void append(String data, boolean last) {
    Connection gone = null;
    synchronized (this) {
      if (complete) {
        LOG.debug("stream {} already complete; message dropped", id);
        return;
      }
      Event e = new Event(++sent, data);
      if (keeping) {
        keeping = keeper.kept(this, e.seq, data, last);
      }
      answered |= last;
      kept.addLast(e);
      keptBytes += data.length();
      while (keptBytes > MAX_KEPT_BYTES && kept.size() > 1) {
        Event old = kept.removeFirst();
        keptBytes -= old.data.length();
        dropped = old.seq;
        keeper.dropped(this, old.seq);
      }
      if (live != null) {
        try {
          write(live, event(e));
        } catch (IOException lostIt) {
          gone = live;
          live = null;
        }
      }
    }
    if (gone != null) {
      LOG.debug("stream {}: the client's connection closed; it may come back with Last-Event-ID", id);
      end(gone);
    }
  }

  @Override
  public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
    return json.convertValue(data, typeRef);
  }

  @Override
  public Mono<Void> closeGracefully() {
    return Mono.fromRunnable(this::close);
  }

  /** Ends the stream: its live connection is completed; what it sent stays kept for a client that comes back. */
  @Override
  public void close() {
    Connection was;
    synchronized (this) {
      if (complete) {
        return;
      }
      complete = true;
      was = live;
      live = null;
      if (keeping && !answered) { // those who follow it elsewhere learn it ended without an answer
        keeping = keeper.kept(this, sent + 1, null, true);
      }
    }
    onComplete.accept(this); // before the client learns of the end: the bounds on ended streams hold when it comes back
    if (was != null) {
      end(was);
    }
  }

  /** Forgets what the keeper holds of this stream (the process forgets it: its window passed). */
  void forget() {
    long last;
    synchronized (this) {
      last = sent + (answered ? 0 : 1);
    }
    keeper.forget(this, last);
  }

  /** The message text kept, in bytes (chars), for the server's bound across streams. */
  synchronized long keptBytes() {
    return keptBytes;
  }

  private String event(Event e) {
    return "id: " + id + "_" + e.seq + "\nevent: message\ndata: " + e.data + "\n\n";
  }

  /**
   * Writes {@code text} and flushes it, on whichever thread sends (a request's container thread,
   * a handler's Reactor worker, the keep-alive timer). Tomcat refuses to write on a thread whose
   * interrupt flag is set, and then closes the connection mid-response: a pooled worker can carry
   * a stray interrupt meant for the task it ran before (a {@code Future.cancel(true)} that lost the
   * race with that task's end), so the flag is cleared for the write and set again after it.
   */
  private static void write(Connection connection, String text) throws IOException {
    boolean interrupted = Thread.interrupted();
    try {
      connection.writer.write(text);
      if (connection.writer.checkError()) { // PrintWriter's flush, then whether anything failed
        throw new IOException("the client's connection closed");
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static void end(Connection connection) {
    try {
      connection.async.complete();
    } catch (IllegalStateException alreadyDone) {
      // completed by the container (the client went away) or by an earlier end
    }
  }

  @Override
  public String toString() {
    return "SseStream[" + Objects.requireNonNull(id) + "]";
  }
}
