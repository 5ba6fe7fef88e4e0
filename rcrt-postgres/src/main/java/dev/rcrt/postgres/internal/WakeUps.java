package dev.rcrt.postgres.internal;

import dev.rcrt.core.spi.DaemonThreads;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells every process listening on a store's channel (this one too) that writes committed, off the
 * writes' own transactions: one {@code NOTIFY} for every write that committed since the last one.
 *
 * <p>Why not in the write's transaction: PostgreSQL serialises the commits of every transaction
 * that sent a {@code NOTIFY}, on the whole server, with a lock held from before the commit until
 * after its WAL flush ({@code PreCommit_Notify} in {@code src/backend/commands/async.c}). A write
 * that notified itself therefore committed only after every other notifying write had flushed, one
 * flush at a time, instead of sharing flushes with the writes beside it. Here the wake-up is its
 * own transaction, committed without waiting for its flush ({@code synchronous_commit} off for it
 * alone: a lost wake-up costs a poll interval, never an event, since readers read the event log),
 * and writes that commit while one is under way share the next.
 *
 * <p>One daemon thread, started by the first write and ended by {@link #close()}, sends them on a
 * connection borrowed from the data source for each. A failed wake-up is logged (once until one
 * succeeds again) and readers find the writes at their next poll. Thread-safe.
 */
final class WakeUps implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(WakeUps.class);
  /** How long {@link #close()} waits for the last wake-up to be sent. */
  private static final Duration LAST = Duration.ofSeconds(10);

  private final DataSource dataSource;
  private final String schema;
  private final String sql;
  private final Object lock = new Object();
  private boolean pending; // guarded by lock
  private boolean closed; // guarded by lock
  private @Nullable Thread thread; // guarded by lock
  private boolean failing; // the sender's own

  WakeUps(DataSource dataSource, Tables tables) {
    this.dataSource = dataSource;
    this.schema = tables.schema;
    this.sql = tables.wakeUp();
  }

  /** Called once a write of the store committed: its wake-up is sent soon, or shared with one about to be. */
  void written() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      pending = true;
      if (thread == null) {
        Thread t = DaemonThreads.factory("rcrt-postgres-wake-ups-" + schema).newThread(this::run);
        t.start();
        thread = t;
      }
      lock.notifyAll();
    }
  }

  private void run() {
    while (true) {
      synchronized (lock) {
        while (!pending && !closed) {
          try {
            lock.wait();
          } catch (InterruptedException e) {
            return; // only close() interrupts, and only once its wait for the last wake-up ran out
          }
        }
        if (!pending) {
          return; // closed with nothing left to send
        }
        pending = false;
      }
      send();
    }
  }

  private void send() {
    try (Connection c = Transactions.borrow(dataSource); Statement s = c.createStatement()) {
      s.execute(sql);
      if (failing) {
        failing = false;
        LOG.info("wake-ups of store schema '{}' are sent again", schema);
      }
    } catch (SQLException e) {
      if (!failing) {
        failing = true;
        LOG.warn("could not wake the processes listening on store schema '{}' ({}); they find the writes at their next poll",
            schema, e.getMessage());
      }
    }
  }

  /**
   * Sends the wake-up of the writes that committed before this call, if one is due (a process that
   * writes and exits at once still wakes the others), then stops: waits at most 10 s for it.
   */
  @Override
  public void close() {
    Thread t;
    synchronized (lock) {
      closed = true;
      t = thread;
      lock.notifyAll();
    }
    if (t == null) {
      return;
    }
    try {
      t.join(LAST.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    t.interrupt();
  }
}
