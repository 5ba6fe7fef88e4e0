package dev.rcrt.postgres.internal;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbEvent;
import dev.rcrt.core.BreadcrumbListener;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.core.spi.OrderedSubscription;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers the event log to this process's subscriptions, and wakes every process's readers after
 * this process's writes ({@link #written()}). One daemon thread holds a connection
 * that {@code LISTEN}s on the store's channel; each wake-up (a notification, or the poll interval
 * when notifications are lost) reads the events after the last one delivered, in log order ({@code
 * tx, seq}), up to the newest one no transaction still in progress can precede ({@link
 * Tables#lastEvent(boolean)}): one record's events in its commit order, and none skipped when transactions
 * commit out of order. Only transactions that can write this store's events hold reading back
 * ({@link Tables#horizon(boolean)}, {@link DeliveryHorizon}); one that holds it back for longer than
 * the stall warning is named in a WARN (pid, database, how long), once, and {@link #lag()} reports
 * how long delivery has waited. A lost connection (a restart, {@code pg_terminate_backend}) is replaced
 * and reading resumes after the last delivered event: nothing is skipped, nothing is delivered
 * twice to one subscription. Each subscription starts after the last event committed when it
 * subscribed.
 *
 * <p><b>One reader per process.</b> Store objects of one process on the same data source and
 * schema (with the same clock, poll interval and retention) share one pump ({@link #acquire}): one
 * listening connection and one read of each event, however many store objects and subscriptions
 * there are. Each store object gives its share back ({@link #release}); the last one closes it.
 */
public final class EventPump {
  private static final Logger LOG = LoggerFactory.getLogger(EventPump.class);
  private static final int BATCH = 500;

  /** The pumps of this process, by what they read; guarded by itself. */
  private static final Map<Key, EventPump> SHARED = new java.util.HashMap<>();

  private final Key key;
  private final DataSource dataSource;
  private final Tables tables;
  private final Clock clock;
  private final Duration pollInterval;
  private final Duration retention;
  private final Duration stallWarning;
  private final Map<OrderedSubscription, Position> subscriptions = new ConcurrentHashMap<>();
  private final Object reading = new Object();
  private volatile boolean closed;
  private @Nullable Position last;
  private long trimmedAt;
  /** Guarded by {@code reading}, but for its lag. */
  private final DeliveryHorizon horizon = new DeliveryHorizon();
  private final ParsedRecords parsed = new ParsedRecords();
  private final WakeUps wakeUps;
  private @Nullable Thread thread; // started by the first subscription
  private int shares; // guarded by SHARED

  /** What a pump reads and how: store objects that agree on all of it share one. The data source is compared by identity. */
  private record Key(Object dataSource, String schema, Clock clock, Duration pollInterval, Duration retention, Duration stallWarning) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && k.dataSource == dataSource && k.schema.equals(schema) && k.clock.equals(clock)
          && k.pollInterval.equals(pollInterval) && k.retention.equals(retention) && k.stallWarning.equals(stallWarning);
    }

    @Override
    public int hashCode() {
      return java.util.Objects.hash(System.identityHashCode(dataSource), schema, clock, pollInterval, retention, stallWarning);
    }
  }

  private EventPump(Key key, DataSource dataSource, Tables tables) {
    this.key = key;
    this.dataSource = dataSource;
    this.tables = tables;
    this.clock = key.clock;
    this.pollInterval = key.pollInterval;
    this.retention = key.retention;
    this.stallWarning = key.stallWarning;
    this.wakeUps = new WakeUps(dataSource, tables);
  }

  /**
   * This process's pump for the events of {@code tables} in {@code dataSource}: the one another
   * store object already holds, else a new one. Each call is one share, given back by {@link #release}.
   *
   * @param pollInterval the longest wait for a notification before reading anyway
   * @param retention how long events are kept for subscribers that catch up
   * @param stallWarning how long delivery waits for one transaction in progress before it is named in a WARN
   */
  public static EventPump acquire(DataSource dataSource, Tables tables, Clock clock, Duration pollInterval, Duration retention,
      Duration stallWarning) {
    Key key = new Key(dataSource, tables.schema, clock, pollInterval, retention, stallWarning);
    synchronized (SHARED) {
      EventPump pump = SHARED.computeIfAbsent(key, k -> new EventPump(k, dataSource, tables));
      pump.shares++;
      return pump;
    }
  }

  /**
   * The records parsed by this pump and by the store objects that share it (one schema, one
   * process): an event read here is not parsed again when a search or get of the store finds its row.
   */
  public ParsedRecords parsed() {
    return parsed;
  }

  /** Gives back one share; the last one stops the reading. The caller closes its own subscriptions first. */
  public void release() {
    synchronized (SHARED) {
      if (--shares > 0) {
        return;
      }
      SHARED.remove(key, this);
    }
    close();
  }

  /**
   * Called by a store object of this pump once one of its writes committed: wakes the readers of
   * every process, this one's too, with one {@code NOTIFY} sent soon after, off the write's
   * transaction ({@link WakeUps}). Thread-safe; does not block.
   */
  public void written() {
    wakeUps.written();
  }

  /**
   * How long delivery has waited for the transaction in progress that holds it back, as of the last
   * read of the log; zero when none does or nothing subscribes. Thread-safe.
   */
  public Duration lag() {
    return horizon.lag();
  }

  /**
   * Subscribes to the events committed after this call.
   *
   * @param executor where {@code listener} is called, one event at a time
   */
  public Subscription subscribe(Selector selector, BreadcrumbListener listener, Executor executor) throws SQLException {
    OrderedSubscription subscription = new OrderedSubscription(selector, listener, executor, subscriptions::remove);
    try (Connection c = Transactions.borrow(dataSource)) {
      Position from = lastEvent(c);
      synchronized (reading) {
        if (last == null) {
          last = from;
        } else if (last.compareTo(from) > 0) {
          deliver(c, from, last, Map.of(subscription, from)); // committed before we subscribed, read after: not ours
        }
        subscriptions.put(subscription, from);
      }
    }
    startOnce();
    return subscription;
  }

  private synchronized void startOnce() {
    if (thread == null && !closed) {
      thread = new Thread(this::run, "rcrt-postgres-events-" + tables.schema);
      thread.setDaemon(true);
      thread.start();
    }
  }

  private void run() {
    Duration backoff = Duration.ofMillis(100);
    while (!closed) {
      try (Connection listening = Transactions.borrow(dataSource)) {
        try (Statement s = listening.createStatement()) {
          s.execute("LISTEN " + tables.channel);
        }
        PGConnection pg = listening.unwrap(PGConnection.class);
        backoff = Duration.ofMillis(100);
        while (!closed) {
          poll(listening);
          pg.getNotifications((int) pollInterval.toMillis()); // wakes early on NOTIFY; throws when the connection is gone
        }
      } catch (SQLException e) {
        if (closed) {
          return;
        }
        LOG.warn("event connection of store schema '{}' lost ({}); reconnecting in {} ms and catching up", tables.schema,
            e.getMessage(), backoff.toMillis());
        sleep(backoff);
        backoff = backoff.multipliedBy(2).compareTo(Duration.ofSeconds(5)) > 0 ? Duration.ofSeconds(5) : backoff.multipliedBy(2);
      }
    }
  }

  /** Reads and hands over every event after the last one delivered. */
  private void poll(Connection c) throws SQLException {
    synchronized (reading) {
      Position after = last;
      if (after == null) {
        last = lastEvent(c);
      } else {
        last = deliver(c, after, null, subscriptions);
      }
      nameStalledWriter(c);
    }
    trimNow(c);
  }

  /**
   * Hands the events {@code (after, upTo]} (with {@code upTo} null: every event readers may take
   * now) to each subscription that started before them.
   *
   * @return the position of the last event read, else {@code after}
   */
  private Position deliver(Connection c, Position after, @Nullable Position upTo, Map<OrderedSubscription, Position> to)
      throws SQLException {
    Position from = after;
    int read;
    boolean again;
    do {
      read = 0;
      again = false;
      List<OrderedSubscription> woken = new ArrayList<>();
      try (PreparedStatement q = c.prepareStatement(upTo == null ? tables.eventsReady(horizon.precise()) : tables.eventsAfter())) {
        int i = 1;
        q.setLong(i++, from.tx());
        q.setLong(i++, from.seq());
        if (upTo != null) {
          q.setLong(i++, upTo.tx());
          q.setLong(i++, upTo.seq());
        }
        q.setInt(i, BATCH);
        try (ResultSet rs = q.executeQuery()) {
          while (rs.next()) {
            long seq = rs.getLong(2);
            if (rs.wasNull()) { // the horizon row of eventsReady
              again = horizon.observe(rs.getLong(1), rs.getObject(6, Boolean.class), rs.getLong(7), rs.getLong(8), System.nanoTime());
              continue;
            }
            read++;
            Position at = new Position(rs.getLong(1), seq);
            from = at;
            BreadcrumbEvent.Type type = BreadcrumbEvent.Type.valueOf(rs.getString(3));
            Timestamp expires = rs.getTimestamp(5);
            if (type != BreadcrumbEvent.Type.DELETED && expires != null && !clock.instant().isBefore(expires.toInstant())) {
              continue; // written already expired: no subscriber sees it, as in memory
            }
            Breadcrumb record = parsed.read(rs, 2, 4); // an event's seq is its row's, or (a deletion) one of its own
            for (Map.Entry<OrderedSubscription, Position> s : to.entrySet()) {
              if (at.compareTo(s.getValue()) > 0 && s.getKey().offer(type, record)) {
                woken.add(s.getKey());
              }
            }
          }
        }
      }
      woken.forEach(OrderedSubscription::deliver);
    } while (read == BATCH || again);
    return from;
  }

  /** Names, once, the transaction that has held delivery back for longer than the stall warning. Called holding {@code reading}. */
  private void nameStalledWriter(Connection c) throws SQLException {
    if (!horizon.nameOnce(stallWarning)) {
      return;
    }
    Duration waited = horizon.lag();
    long heldBy = horizon.heldBy();
    String who = "no longer in pg_locks";
    try (PreparedStatement q = c.prepareStatement(tables.transactionHolder())) {
      q.setLong(1, heldBy);
      try (ResultSet rs = q.executeQuery()) {
        if (rs.next()) {
          who = "pid " + rs.getInt(1) + ", database " + quoted(rs.getString(2)) + ", application " + quoted(rs.getString(3))
              + ", client " + quoted(rs.getString(4));
        }
      }
    }
    LOG.warn("event delivery of store schema '{}' has waited {} s for transaction {} ({}), which can write this store's events"
        + " and is still in progress: events committed after it are delivered once it ends. A stopped or stalled writer"
        + " process holds it; if it does not resume, end its transaction (pg_terminate_backend(pid))",
        tables.schema, String.format(java.util.Locale.ROOT, "%.1f", waited.toMillis() / 1000.0), heldBy, who);
  }

  /** A value another session chose (its application name), on one line of the log. */
  private static String quoted(@Nullable String s) {
    return s == null ? "not visible to this role" : "'" + s.replaceAll("\\p{Cntrl}", "?") + "'";
  }

  private Position lastEvent(Connection c) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(tables.lastEvent(horizon.precise()))) {
      return rs.next() ? new Position(rs.getLong(1), rs.getLong(2)) : Position.START;
    }
  }

  /** Where an event stands in the log: its transaction's id, then its sequence number. */
  record Position(long tx, long seq) implements Comparable<Position> {
    static final Position START = new Position(-1, -1);

    @Override
    public int compareTo(Position o) {
      return tx != o.tx ? Long.compare(tx, o.tx) : Long.compare(seq, o.seq);
    }
  }

  /** Deletes events older than the retention, at most once a minute. */
  private void trimNow(Connection c) throws SQLException {
    long now = System.nanoTime();
    if (now - trimmedAt < Duration.ofMinutes(1).toNanos() && trimmedAt != 0) {
      return;
    }
    trimmedAt = now;
    try (PreparedStatement d = c.prepareStatement(tables.trimEvents())) {
      d.setDouble(1, retention.toMillis() / 1000.0);
      d.executeUpdate();
    }
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Sends the last wake-up, then stops reading; subscriptions get nothing more. */
  private void close() {
    wakeUps.close();
    closed = true;
    Thread t;
    synchronized (this) {
      t = thread;
    }
    if (t != null) {
      t.interrupt();
    }
  }
}
