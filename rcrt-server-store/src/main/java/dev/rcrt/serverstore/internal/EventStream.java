package dev.rcrt.serverstore.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.BreadcrumbEvent;
import dev.rcrt.core.BreadcrumbListener;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.StoreErrorCode;
import dev.rcrt.core.Subscription;
import dev.rcrt.core.ValidationException;
import dev.rcrt.core.spi.DaemonThreads;
import dev.rcrt.core.spi.OrderedSubscription;
import dev.rcrt.serverstore.RcrtServerException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * RCRT's event stream ({@code GET /events/stream}) as the store's subscriptions: one connection
 * for all of them, opened by the first subscription, reopened after {@code reconnectDelay}
 * whenever it ends.
 *
 * <p>RCRT sends {@code data:} lines only: {@code {"type":"ping"}} every few seconds (skipped), and
 * {@code {"type":"breadcrumb.updated", breadcrumb_id, version, tags, schema_name, updated_at,
 * context}} for creates and updates alike, sometimes twice. Each event is delivered once per
 * {@code (id, version)}, as {@code CREATED} when its version is 1, else {@code UPDATED}; the record
 * is the one last read with the event's version, context, tags and time (a create is read in
 * full). RCRT sends nothing for deletes, so subscribers get no {@code DELETED} events, and events
 * sent while the connection was down are not replayed. Thread-safe.
 */
public final class EventStream implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EventStream.class);
  private static final int REMEMBERED = 10_000;

  private final RestClient rest;
  private final WireRecords wire;
  private final Function<String, Optional<WireRecords.Stored>> fetch;
  private final Duration reconnectDelay;
  private final Duration connectTimeout;
  private final ExecutorService delivery = DaemonThreads.pool(0, "rcrt-server-events");
  private final List<OrderedSubscription> subscriptions = new CopyOnWriteArrayList<>();
  private final Map<String, WireRecords.Stored> lastSeen = new LinkedHashMap<>(16, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, WireRecords.Stored> eldest) {
      return size() > REMEMBERED;
    }
  };
  private final Map<String, Boolean> delivered = new LinkedHashMap<>(16, 0.75f, false) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
      return size() > REMEMBERED;
    }
  };
  private final Object connection = new Object();
  private @Nullable Thread reader;
  private @Nullable Stream<String> lines;
  private boolean connected;
  private volatile boolean closed;

  /**
   * @param fetch reads a record in full by its server id; empty when it is gone or expired
   */
  public EventStream(
      RestClient rest, WireRecords wire, Function<String, Optional<WireRecords.Stored>> fetch, Duration reconnectDelay, Duration connectTimeout) {
    this.rest = rest;
    this.wire = wire;
    this.fetch = fetch;
    this.reconnectDelay = reconnectDelay;
    this.connectTimeout = connectTimeout;
  }

  /**
   * Subscribes; the first subscription opens the stream and waits until the server has accepted
   * it, so every write after this call returns is seen.
   *
   * @throws RcrtServerException {@code store_unavailable} if the stream cannot be opened in time
   */
  public Subscription subscribe(Selector selector, BreadcrumbListener listener) {
    OrderedSubscription s = new OrderedSubscription(selector, listener, delivery, subscriptions::remove);
    subscriptions.add(s);
    try {
      awaitConnected();
    } catch (RuntimeException e) {
      s.close();
      throw e;
    }
    return s;
  }

  private void awaitConnected() {
    synchronized (connection) {
      if (reader == null) {
        reader = DaemonThreads.factory("rcrt-server-stream").newThread(this::run);
        reader.start();
      }
      long deadline = System.nanoTime() + connectTimeout.toNanos();
      while (!connected && !closed) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new RcrtServerException(
              StoreErrorCode.STORE_UNAVAILABLE.code(), "GET /events/stream: the RCRT server's event stream did not open within " + connectTimeout.toMillis() + " ms", true, null);
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(connection, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new RcrtServerException(StoreErrorCode.STORE_UNAVAILABLE.code(), "GET /events/stream: interrupted while opening", true, e);
        }
      }
    }
  }

  private void run() {
    while (!closed) {
      try {
        HttpResponse<Stream<String>> response = rest.http().send(rest.streamRequest("/events/stream"), HttpResponse.BodyHandlers.ofLines());
        if (response.statusCode() != 200) {
          response.body().close();
          if (response.statusCode() == 401) {
            rest.forgetToken();
          }
          LOG.warn("RCRT event stream refused with HTTP {}; retrying in {} ms", response.statusCode(), reconnectDelay.toMillis());
        } else {
          synchronized (connection) {
            lines = response.body();
            connected = true;
            connection.notifyAll();
          }
          try (Stream<String> body = response.body()) {
            body.forEach(this::line);
          }
          if (!closed) {
            LOG.info("RCRT event stream ended; reconnecting in {} ms (events sent meanwhile are not replayed)", reconnectDelay.toMillis());
          }
        }
      } catch (java.io.IOException | RuntimeException e) {
        if (!closed) {
          LOG.warn("RCRT event stream failed ({}); reconnecting in {} ms", e.toString(), reconnectDelay.toMillis());
        }
      } catch (InterruptedException e) {
        return;
      }
      synchronized (connection) {
        connected = false;
        lines = null;
      }
      try {
        Thread.sleep(reconnectDelay.toMillis());
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void line(String line) {
    if (closed) {
      throw new IllegalStateException("closed"); // ends forEach
    }
    if (!line.startsWith("data:")) {
      return;
    }
    JsonNode event;
    try {
      event = RcrtJson.parse(line.substring(5).strip());
    } catch (ValidationException notJson) {
      LOG.warn("RCRT event stream sent a line that is not JSON; skipped");
      return;
    }
    if (!"breadcrumb.updated".equals(event.path("type").asText()) && !event.has("breadcrumb_id")) {
      return; // a ping, or an event type the store does not map
    }
    String id = event.path("breadcrumb_id").asText();
    long version = event.path("version").asLong();
    if (id.isEmpty() || delivered.put(id + "@" + version, Boolean.TRUE) != null) {
      return;
    }
    WireRecords.Stored base = version == 1 ? null : lastSeen.get(id);
    if (base == null) {
      base = fetch.apply(id).orElse(null);
      if (base == null) {
        return; // deleted or expired before it could be read
      }
    }
    WireRecords.Stored now = wire.fromEvent(base, event);
    lastSeen.put(id, now);
    BreadcrumbEvent.Type type = version == 1 ? BreadcrumbEvent.Type.CREATED : BreadcrumbEvent.Type.UPDATED;
    for (OrderedSubscription s : subscriptions) {
      s.offer(type, now.record());
    }
    for (OrderedSubscription s : subscriptions) {
      s.deliver();
    }
  }

  @Override
  public void close() {
    closed = true;
    synchronized (connection) {
      if (lines != null) {
        lines.close();
      }
      if (reader != null) {
        reader.interrupt();
      }
      connection.notifyAll();
    }
    subscriptions.forEach(OrderedSubscription::close);
    delivery.shutdown();
  }
}
