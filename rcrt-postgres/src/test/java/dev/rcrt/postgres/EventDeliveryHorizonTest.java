package dev.rcrt.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.postgres.internal.Tables;
import dev.rcrt.testing.MonitorWaits;
import dev.rcrt.testing.RecordedEvents;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Event delivery waits only for transactions that can write this store's events (issue 36, item 4):
 * a transaction left open in another database, or in another schema of the same database, holds
 * nothing back; a writer of this store stalled mid-transaction holds back the events committed after
 * it (they must not be skipped), is named in a WARN once the stall warning passes, and shows as lag.
 */
class EventDeliveryHorizonTest {
  private static final Duration WITHIN = Duration.ofSeconds(60);

  @Test
  void transactionsOpenElsewhereOnTheServerHoldNoEventBack() throws Exception {
    String schema = TestPostgres.freshSchema();
    try (PostgresBreadcrumbStore store = open(schema, Duration.ofSeconds(10));
        Connection otherDatabase = DriverManager.getConnection(urlOf(otherDatabase()));
        Connection sameDatabase = TestPostgres.dataSource().getConnection()) {
      RecordedEvents seen = new RecordedEvents();
      try (Subscription ignored = store.subscribe(Selector.schema("note.v1"), seen)) {
        long elsewhere = openTransaction(otherDatabase);
        long besideUs = openTransaction(sameDatabase); // another application's work in the same database: not a writer of this store
        assertThat(elsewhere).isPositive();
        assertThat(besideUs).isPositive();

        store.create(BreadcrumbCreate.builder("note.v1", "written while others' transactions stay open").build());
        assertThat(seen.awaitCount(1, WITHIN)).as("delivered while the two transactions are still open").isTrue();
        assertThat(seen.events()).hasSize(1);
        assertThat(store.eventDeliveryLag()).isZero();
      } finally {
        otherDatabase.rollback();
        sameDatabase.rollback();
        sameDatabase.setAutoCommit(true);
      }
    }
  }

  @Test
  void aStalledWriterOfThisStoreHoldsLaterEventsBackIsNamedAndShowsAsLag() throws Exception {
    String schema = TestPostgres.freshSchema();
    PrintStream err = System.err;
    Tee logged = new Tee(err);
    try (PostgresBreadcrumbStore store = open(schema, Duration.ofMillis(300));
        Connection stalled = DriverManager.getConnection(urlOf(currentDatabase()) + "&ApplicationName=stalled-writer-test")) {
      RecordedEvents seen = new RecordedEvents();
      int pid;
      try (Statement s = stalled.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
        rs.next();
        pid = rs.getInt(1);
      }
      System.setErr(new PrintStream(logged, true, StandardCharsets.UTF_8));
      try (Subscription ignored = store.subscribe(Selector.schema("note.v1"), seen)) {
        // a writer of this store, as every write of this version begins: the writers' lock, then its transaction id
        stalled.setAutoCommit(false);
        try (Statement s = stalled.createStatement()) {
          s.execute("SELECT " + new Tables(schema).writerLock());
        }
        long stalledTx = openTransaction(stalled);

        store.create(BreadcrumbCreate.builder("note.v1", "committed after the stalled writer began").build());
        assertThat(logged.awaitText("transaction " + stalledTx, WITHIN)).as("the stalled writer named").isTrue();

        String warning = logged.text();
        assertThat(warning).contains("event delivery of store schema '" + schema + "' has waited")
            .contains("pid " + pid).contains("database '" + currentDatabase() + "'").contains("application 'stalled-writer-test'");
        assertThat(seen.events()).as("held back, not skipped, while the older writer may still write").isEmpty();
        assertThat(store.eventDeliveryLag()).isGreaterThanOrEqualTo(Duration.ofMillis(300));

        stalled.rollback();
        assertThat(seen.awaitCount(1, WITHIN)).isTrue();
        assertThat(seen.events()).hasSize(1);
        // the read that delivered it found no writer of the store in progress
        assertThat(store.eventDeliveryLag()).isZero();
      }
    } finally {
      System.setErr(err);
    }
  }

  private static PostgresBreadcrumbStore open(String schema, Duration stallWarning) {
    return PostgresBreadcrumbStore.builder(TestPostgres.dataSource()).schema(schema).pollInterval(Duration.ofMillis(100))
        .writerStallWarning(stallWarning).build();
  }

  /** Begins a transaction on {@code c} and gives it an id, as its first write would. */
  private static long openTransaction(Connection c) throws SQLException {
    c.setAutoCommit(false);
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_current_xact_id()::text::bigint")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static String currentDatabase() throws SQLException {
    try (Connection c = TestPostgres.dataSource().getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT current_database()")) {
      rs.next();
      return rs.getString(1);
    }
  }

  /** A second database on the test server, created once. */
  private static String otherDatabase() throws SQLException {
    try (Connection c = TestPostgres.dataSource().getConnection(); Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE rcrt_other");
    } catch (SQLException e) {
      if (!"42P04".equals(e.getSQLState())) { // exists already
        throw e;
      }
    }
    return "rcrt_other";
  }

  /** The test server's JDBC URL on {@code database}. */
  private static String urlOf(String database) {
    String url = TestPostgres.jdbcUrl();
    int path = url.indexOf('/', "jdbc:postgresql://".length());
    int query = url.indexOf('?', path);
    return url.substring(0, path + 1) + database + (query < 0 ? "?" : url.substring(query));
  }

  /** Writes to {@code out} and keeps a copy, which a test waits on: each write wakes it. */
  private static final class Tee extends OutputStream {
    private final OutputStream out;
    private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

    Tee(OutputStream out) {
      this.out = out;
    }

    @Override
    public synchronized void write(int c) throws java.io.IOException {
      out.write(c);
      copy.write(c);
      notifyAll();
    }

    @Override
    public synchronized void write(byte[] buf, int off, int len) throws java.io.IOException {
      out.write(buf, off, len);
      copy.write(buf, off, len);
      notifyAll();
    }

    synchronized String text() {
      return copy.toString(StandardCharsets.UTF_8);
    }

    /** Waits until the copy contains {@code text}, for at most {@code within}; whether it does. */
    boolean awaitText(String text, Duration within) throws InterruptedException {
      return MonitorWaits.until(this, () -> text().contains(text), within);
    }
  }
}
