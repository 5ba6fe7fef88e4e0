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
 * <p>The SDK's session sends through this object whether a connection is attached or not. One
 * connection is attached at a time; a new one replaces the old. Thread-safe.
 */
final class SseStream implements McpStreamableServerTransport {
  private static final Logger LOG = LoggerFactory.getLogger(SseStream.class);

  /** The most message text one stream keeps for clients that come back: 8 MiB. */
  static final int MAX_KEPT_BYTES = 8 * 1024 * 1024;

  /** A connection: the servlet's asynchronous response and its writer. */
  record Connection(AsyncContext async, PrintWriter writer) {}

  private record Event(long seq, String data) {}

  private final String id;
  private final String sessionId;
  private final McpJsonMapper json;
  private final long retryMillis;
  private final Consumer<SseStream> onComplete;
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
   * @param onComplete told once, when the stream has sent its last event
   */
  SseStream(String id, String sessionId, McpJsonMapper json, Duration retry, Consumer<SseStream> onComplete) {
    this.id = id;
    this.sessionId = sessionId;
    this.json = json;
    this.retryMillis = retry.toMillis();
    this.onComplete = onComplete;
  }

  String id() {
    return id;
  }

  String sessionId() {
    return sessionId;
  }

  /** The number in {@code eventId} if it names an event of this stream, else -1. */
  long seqOf(String eventId) {
    if (!eventId.startsWith(id + "_")) {
      return -1;
    }
    try {
      long seq = Long.parseLong(eventId.substring(id.length() + 1));
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
   * @return false when events after {@code after} are no longer kept, or {@code after} was never sent
   *     (nothing is written then)
   */
  boolean attach(Connection connection, long after) {
    Connection old;
    synchronized (this) {
      if (after > sent || after < dropped) {
        return false;
      }
      old = live;
      live = connection;
      attaches++;
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

  /** How many connections were attached so far: 1 for a stream's first. */
  synchronized int attaches() {
    return attaches;
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
      Connection gone = null;
      synchronized (this) {
        if (complete) {
          LOG.debug("stream {} already complete; message dropped", id);
          return;
        }
        Event e = new Event(++sent, data);
        kept.addLast(e);
        keptBytes += data.length();
        while (keptBytes > MAX_KEPT_BYTES && kept.size() > 1) {
          Event old = kept.removeFirst();
          keptBytes -= old.data.length();
          dropped = old.seq;
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
    });
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
    }
    if (was != null) {
      end(was);
    }
    onComplete.accept(this);
  }

  /** The message text kept, in bytes (chars), for the server's bound across streams. */
  synchronized long keptBytes() {
    return keptBytes;
  }

  private String event(Event e) {
    return "id: " + id + "_" + e.seq + "\nevent: message\ndata: " + e.data + "\n\n";
  }

  private static void write(Connection connection, String text) throws IOException {
    connection.writer.write(text);
    connection.writer.flush();
    if (connection.writer.checkError()) {
      throw new IOException("the client's connection closed");
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
