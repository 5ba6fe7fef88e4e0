package dev.rcrt.mcp.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbEvent;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.Principal;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Sensitivity;
import dev.rcrt.core.Subscription;
import dev.rcrt.core.TimeSource;
import dev.rcrt.core.TtlType;
import dev.rcrt.core.Visibility;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

/**
 * A call's event stream kept in the store as it is sent, so that a client whose connection closed
 * can come back to any process of a shared store with {@code Last-Event-ID}: that process follows
 * the stream from the store, sending what the client missed and then the rest as the serving
 * process writes it, until the call's response.
 *
 * <p>One {@code mcp.stream.event.v1} record an event, written by the host before any client sees the
 * event: the priming event (number 0, no data), each message, and, for a stream that closed without
 * its response, an end without data. A record is {@code Private} and {@code Secret} (a tool's result
 * is the client's, never a model's or another tool's; never embedded) and holds neither the stream's
 * id nor the session's, only hashes of them ({@link SessionRecords#hashOf}): a reader of the store
 * cannot name a stream to resume, and a stream is followed only for the session that owns it.
 * Records a tool wrote are not followed.
 *
 * <p><b>Retention.</b> The process that sent a stream deletes its records when it forgets the stream
 * ({@link StreamableHttp#RESUME_WINDOW} after it ended), and the events it stops keeping ({@link
 * SseStream#MAX_KEPT_BYTES}) as it goes. Each record also expires {@link #KEPT} after it was written,
 * so those of a process that stopped are not followed after that (the host's {@link
 * BreadcrumbStore#purgeExpired()} removes them). A call quiet for longer than that is resumed only
 * from the process that serves it.
 *
 * <p><b>Cost.</b> Two writes a call on the store (the priming event and the response), one more a
 * message sent in between, and as many deletes when the stream is forgotten. Thread-safe.
 */
final class StreamRecords implements SseStream.Keeper {
  private static final Logger LOG = LoggerFactory.getLogger(StreamRecords.class);
  static final String SCHEMA = "mcp.stream.event.v1";

  /** How long after it was written an event record may be followed: 1 hour 5 minutes. */
  static final Duration KEPT = Duration.ofHours(1).plus(StreamableHttp.RESUME_WINDOW);

  private final BreadcrumbStore store;
  private final TimeSource time;

  StreamRecords(BreadcrumbStore store, TimeSource time) {
    this.store = store;
    this.time = time;
  }

  @Override
  public boolean kept(SseStream stream, long seq, @Nullable String data, boolean last) {
    String hash = SessionRecords.hashOf(stream.id());
    ObjectNode context = RcrtJson.object().put("session", SessionRecords.hashOf(stream.sessionId())).put("seq", seq).put("last", last);
    if (data != null) {
      context.put("data", data);
    }
    try {
      store.create(BreadcrumbCreate.builder(SCHEMA, "MCP stream event " + seq).id(recordId(hash, seq)).tags(tag(hash))
          .visibility(Visibility.PRIVATE).sensitivity(Sensitivity.SECRET).ttl(time.instant().plus(KEPT), TtlType.DATETIME, null)
          .context(context).build());
      return true;
    } catch (RuntimeException e) {
      LOG.warn("MCP stream event not kept in the store ({}): the stream is resumed from this process only",
          e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
      return false;
    }
  }

  @Override
  public void dropped(SseStream stream, long seq) {
    delete(recordId(SessionRecords.hashOf(stream.id()), seq));
  }

  @Override
  public void forget(SseStream stream, long lastSeq) {
    String hash = SessionRecords.hashOf(stream.id());
    for (long seq = 0; seq <= lastSeq; seq++) {
      delete(recordId(hash, seq));
    }
  }

  /**
   * Follows stream {@code streamId} of another process from the store, after event {@code after}:
   * a {@link SseStream#follower} fed on a worker of its own (never the store's event thread) with
   * every event the store holds after that one and each one written later, in order, until the
   * stream's last. Empty when the store holds no such event for that session (never sent, another
   * session's, forgotten, dropped by the stream's bound, or written by a tool).
   *
   * @param sessionId the session's id as its client sends it
   * @param make builds the follower (it is told of the stream's end as any stream is)
   * @return the follower and what stops following it (closed when the stream ends, or by the caller)
   */
  Optional<Following> follow(String streamId, String sessionId, long after, java.util.function.LongFunction<SseStream> make) {
    String hash = SessionRecords.hashOf(streamId);
    String session = SessionRecords.hashOf(sessionId);
    Optional<Breadcrumb> from = store.get(recordId(hash, after)).filter(b -> ours(b, session));
    if (from.isEmpty()) {
      return Optional.empty();
    }
    SseStream follower = make.apply(after);
    if (from.get().context().path("last").asBoolean()) { // the client saw the answer: nothing follows
      follower.close();
      return Optional.of(new Following(follower, () -> {}));
    }
    Feed feed = new Feed(follower, session, after);
    Sinks.Many<Breadcrumb> events = Sinks.many().unicast().onBackpressureBuffer();
    Disposable feeding = events.asFlux().publishOn(Schedulers.boundedElastic()).subscribe(feed::add,
        e -> LOG.warn("MCP stream not followed further: {}", e.toString()));
    // subscribe first, then read what is there: an event written between the two comes either way, and the feed drops twins
    Subscription watching = store.subscribe(Selector.allTags(tag(hash)), e -> {
      if (e.type() != BreadcrumbEvent.Type.DELETED) {
        synchronized (events) {
          events.tryEmitNext(e.breadcrumb());
        }
      }
    });
    for (int offset = 0;; offset += 500) {
      List<Breadcrumb> page = store.search(Selector.allTags(tag(hash)), 500, offset);
      synchronized (events) {
        page.forEach(events::tryEmitNext);
      }
      if (page.size() < 500) {
        break;
      }
    }
    return Optional.of(new Following(follower, () -> {
      watching.close();
      feeding.dispose();
    }));
  }

  /** A stream followed from the store, and what stops following it. */
  record Following(SseStream stream, Runnable stop) {}

  /** Puts a followed stream's events in order and hands them on; one worker at a time. */
  private static final class Feed {
    private final SseStream stream;
    private final String session;
    private final TreeMap<Long, Breadcrumb> early = new TreeMap<>();
    private long next;

    Feed(SseStream stream, String session, long after) {
      this.stream = stream;
      this.session = session;
      this.next = after + 1;
    }

    void add(Breadcrumb event) {
      if (!ours(event, session) || stream.isComplete()) {
        return;
      }
      long seq = event.context().path("seq").asLong(-1);
      if (seq >= next) {
        early.put(seq, event);
      }
      for (Breadcrumb b = early.remove(next); b != null; b = early.remove(next)) {
        JsonNode data = b.context().get("data");
        stream.follow(next, data == null || !data.isTextual() ? null : data.asText(), b.context().path("last").asBoolean());
        next++;
      }
    }
  }

  /** Whether {@code b} is an event record the host wrote for {@code session}'s stream. */
  private static boolean ours(Breadcrumb b, String session) {
    return SCHEMA.equals(b.schemaName()) && Principal.writerOf(b).isHost() && session.equals(b.context().path("session").asText());
  }

  private void delete(String id) {
    try {
      store.delete(id);
    } catch (RuntimeException e) {
      LOG.debug("MCP stream event {} not deleted ({}); it expires", id, e.toString());
    }
  }

  private static String recordId(String streamHash, long seq) {
    return "mcp-stream-" + streamHash + "-" + seq;
  }

  private static String tag(String streamHash) {
    return "mcp:stream:" + streamHash;
  }
}
