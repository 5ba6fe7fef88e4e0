package dev.rcrt.postgres.internal;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbEvent;
import dev.rcrt.core.WorkClaims;
import dev.rcrt.core.spi.DaemonThreads;
import dev.rcrt.core.spi.EmbeddingIndexer;
import dev.rcrt.core.spi.IndexedVectorSearch;
import dev.rcrt.core.spi.VectorIndex;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a process's {@link LuceneVectorIndex} in step with {@code breadcrumb_vectors}: at start it
 * reads the whole table (the rebuild), then every poll interval, and at once when this process wrote
 * vectors ({@link #wake()}), the rows written since, in (tx, seq) order below the oldest
 * transaction in progress, as the event log is read. Rows of another model are not used. Updates
 * and deletes reach the index through the store's events ({@link #onEvent}), so that an older
 * version's vector leaves every process's index as soon as the write is delivered.
 *
 * <p>Every minute one process of the fleet (the holder of a work claim) looks for records whose
 * vector is missing, stale or of another model, written before its previous look, and offers them
 * to its {@link EmbeddingIndexer}: records a writer could not embed before it stopped are embedded
 * by another process. At start each process looks at once, for records written before it started.
 *
 * <p>One daemon thread, started by {@link #start()} (the store's first write or search by meaning,
 * so that a process that only reads by other means never rebuilds the index nor runs the model);
 * {@link #close()} ends it.
 */
public final class VectorFeed implements AutoCloseable, IndexedVectorSearch.CatchUp {
  private static final Logger LOG = LoggerFactory.getLogger(VectorFeed.class);
  private static final int PAGE = 2_000;
  private static final int SWEEP = 10_000;
  private static final Duration SWEEP_EVERY = Duration.ofMinutes(1);
  private static final Duration SWEEP_LEASE = Duration.ofMinutes(2);

  private final Transactions tx;
  private final VectorTable table;
  private final LuceneVectorIndex index;
  private final String model;
  private final EmbeddingIndexer indexer;
  private final WorkClaims claims;
  private final String owner;
  private final String sweepKey;
  private final Duration poll;
  private final Thread thread;
  private final Object lock = new Object();
  private long tx0;
  private long seq0;
  private long sweptUpTo = -1;
  private long nextSweep;
  private boolean woken;
  private boolean closed;
  private boolean started;
  private volatile boolean rebuilt;
  /** The start-up sweep ran: what it found without a vector is with the indexer. */
  private boolean sweptAtStart;

  public VectorFeed(
      Transactions tx, Tables tables, VectorTable table, LuceneVectorIndex index, String model, EmbeddingIndexer indexer,
      WorkClaims claims, String owner, Duration poll) {
    this.tx = tx;
    this.table = table;
    this.index = index;
    this.model = model;
    this.indexer = indexer;
    this.claims = claims;
    this.owner = owner;
    this.sweepKey = "rcrt/vectors/sweep/" + tables.schema;
    this.poll = poll;
    this.thread = DaemonThreads.factory("rcrt-vectors-" + tables.schema).newThread(this::run);
  }

  /** Starts reading the table and sweeping, once; a no-op after the first call and after {@link #close()}. */
  public void start() {
    synchronized (lock) {
      if (started || closed) {
        return;
      }
      started = true;
    }
    thread.start();
  }

  /** This process wrote vectors: read them now rather than at the next poll. */
  public void wake() {
    synchronized (lock) {
      woken = true;
      lock.notifyAll();
    }
  }

  /** A write delivered by the store's events: an update or delete takes the older vector out of the index. */
  public void onEvent(BreadcrumbEvent event) {
    Breadcrumb b = event.breadcrumb();
    switch (event.type()) {
      case UPDATED -> index.removeBefore(b.id(), b.version());
      case DELETED -> index.remove(b.id());
      case CREATED -> { }
    }
  }

  /**
   * Waits until the start-up rebuild is done and the start-up sweep has handed the indexer what it
   * found (when this process held the sweep's claim), at most {@code timeout}; reads nothing.
   */
  @Override
  public boolean awaitStarted(Duration timeout) throws InterruptedException {
    start();
    return until(this::startDone, System.nanoTime() + timeout.toNanos());
  }

  /** Under {@link #lock}: the rebuild is done and the start-up sweep has run. */
  private boolean startDone() {
    return rebuilt && sweptAtStart;
  }

  /**
   * Waits until the index holds every row that was readable when called, the start-up rebuild is
   * done, and the start-up sweep has handed the indexer what it found (when this process held the
   * sweep's claim), at most {@code timeout}.
   */
  @Override
  public boolean await(Duration timeout) throws InterruptedException {
    start();
    long deadline = System.nanoTime() + timeout.toNanos();
    long[] target = tx.read("read the vectors' position", c -> {
      try (PreparedStatement q = c.prepareStatement(table.last()); ResultSet rs = q.executeQuery()) {
        return rs.next() ? new long[] {rs.getLong(1), rs.getLong(2)} : new long[] {0, 0};
      }
    });
    wake();
    return until(() -> startDone() && (tx0 > target[0] || (tx0 == target[0] && seq0 >= target[1])), deadline);
  }

  /** Waits on {@link #lock}, which the feed's thread notifies after each pass, until {@code done} holds or {@code deadline} ({@link System#nanoTime()}). */
  private boolean until(java.util.function.BooleanSupplier done, long deadline) throws InterruptedException {
    synchronized (lock) {
      while (!done.getAsBoolean()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        lock.wait(Math.max(1, left / 1_000_000));
      }
      return true;
    }
  }

  /** Stops the thread and waits for it (at most 10 s), so that the index closed after this call is no longer read into. */
  @Override
  public void close() {
    synchronized (lock) {
      closed = true;
      lock.notifyAll();
    }
    DaemonThreads.stop(thread, Duration.ofSeconds(10));
  }

  private void run() {
    long started = System.nanoTime();
    boolean failing = false;
    while (true) {
      synchronized (lock) {
        if (closed) {
          return;
        }
      }
      try {
        int read = catchUp();
        if (!rebuilt) {
          rebuilt = true;
          LOG.info("vector index rebuilt from the table: {} vectors in {} ms", read, (System.nanoTime() - started) / 1_000_000);
        }
        sweep();
        synchronized (lock) {
          sweptAtStart = true;
        }
        if (failing) {
          LOG.info("vector index reads its table again");
          failing = false;
        }
      } catch (RuntimeException e) {
        synchronized (lock) {
          if (closed) {
            return; // closed under a read: nothing is wrong
          }
        }
        // the database is away, or a row is unreadable: the feed keeps trying, so the index never stops for good
        if (!failing) {
          LOG.warn("vector index cannot read its table; searches by meaning answer from what it holds until it can: {}", e.toString());
          failing = true;
        }
      }
      synchronized (lock) {
        lock.notifyAll(); // awaitStarted, await
        if (!woken && !closed) {
          try {
            lock.wait(poll.toMillis());
          } catch (InterruptedException e) {
            // close() interrupts
          }
        }
        woken = false;
      }
    }
  }

  /** Reads every readable row past the position into the index; the number read. */
  private int catchUp() {
    int total = 0;
    while (true) {
      long fromTx;
      long fromSeq;
      synchronized (lock) {
        fromTx = tx0;
        fromSeq = seq0;
      }
      List<Object[]> rows = tx.read("read vectors", c -> page(c, fromTx, fromSeq));
      for (Object[] row : rows) {
        apply(row);
      }
      total += rows.size();
      if (!rows.isEmpty()) {
        Object[] last = rows.get(rows.size() - 1);
        synchronized (lock) {
          tx0 = (long) last[0];
          seq0 = (long) last[1];
        }
      }
      if (rows.size() < PAGE) {
        return total;
      }
    }
  }

  private List<Object[]> page(Connection c, long fromTx, long fromSeq) throws SQLException {
    List<Object[]> out = new ArrayList<>();
    try (PreparedStatement q = c.prepareStatement(table.ready())) {
      Rows.bind(q, fromTx, fromSeq, PAGE);
      q.setFetchSize(PAGE);
      try (ResultSet rs = q.executeQuery()) {
        while (rs.next()) {
          Array tags = rs.getArray(7);
          Array vector = rs.getArray(8);
          out.add(new Object[] {rs.getLong(1), rs.getLong(2), rs.getString(3), rs.getLong(4), rs.getString(5), rs.getString(6),
              tags == null ? new String[0] : (String[]) tags.getArray(), vector == null ? new Float[0] : (Float[]) vector.getArray()});
        }
      }
    }
    return out;
  }

  private void apply(Object[] row) {
    String id = (String) row[2];
    Float[] boxed = (Float[]) row[7];
    if (!model.equals(row[4]) || boxed.length == 0) {
      index.remove(id); // another model's vector, or the version is not embedded
      return;
    }
    float[] vector = new float[boxed.length];
    for (int i = 0; i < boxed.length; i++) {
      vector[i] = boxed[i];
    }
    index.put(new VectorIndex.Entry(id, (long) row[3], (String) row[5], Set.of((String[]) row[6]), vector));
  }

  /** At start and every minute, for the process holding the sweep claim: offers records written before the previous look that lack a current vector. */
  private void sweep() {
    long now = System.nanoTime();
    if (sweptUpTo >= 0 && now < nextSweep) {
      return;
    }
    nextSweep = now + SWEEP_EVERY.toNanos();
    long cutoff = sweptUpTo < 0 ? Long.MAX_VALUE : sweptUpTo;
    Optional<WorkClaims.Claim> claim = claims.tryClaim(sweepKey, owner, SWEEP_LEASE);
    long newest = tx.read("read the newest write", c -> java.util.Objects.requireNonNullElse(Rows.longValue(c, table.lastWrite()), 0L));
    if (claim.isEmpty()) {
      sweptUpTo = newest;
      return;
    }
    try {
      List<String> ids = tx.read("find records without vectors", c -> {
        List<String> out = new ArrayList<>();
        try (PreparedStatement q = c.prepareStatement(table.unembedded())) {
          Rows.bind(q, Math.min(cutoff, newest), model, SWEEP);
          try (ResultSet rs = q.executeQuery()) {
            while (rs.next()) {
              out.add(rs.getString(1));
            }
          }
        }
        return out;
      });
      ids.forEach(indexer::offer);
      if (!ids.isEmpty()) {
        LOG.info("{} records without a current vector are being embedded", ids.size());
      }
      sweptUpTo = newest;
    } finally {
      claims.release(claim.get());
    }
  }
}
