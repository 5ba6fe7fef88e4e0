package dev.rcrt.postgres.internal;

import dev.rcrt.core.RcrtException;
import dev.rcrt.core.StoreErrorCode;
import dev.rcrt.core.ValidationException;
import dev.rcrt.postgres.PostgresStoreException;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Runs store calls on borrowed connections: reads and single-statement writes in auto-commit, a
 * write of an existing record as one transaction holding that record's lock ({@link
 * Tables#recordLock()}), so writes of different records never wait for one another. Every
 * connection the store borrows goes through {@link #borrow}, which puts it in auto-commit whatever
 * the pool's default (a pool set to {@code autoCommit=false} would otherwise roll back every write
 * when it takes the connection back). Database errors
 * become {@link PostgresStoreException}s (or a {@link ValidationException} for a value PostgreSQL
 * cannot store); the store's own exceptions pass through after a rollback.
 */
public final class Transactions {
  /** One call's work on a connection. */
  public interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  private final DataSource dataSource;
  private final Tables tables;

  public Transactions(DataSource dataSource, Tables tables) {
    this.dataSource = dataSource;
    this.tables = tables;
  }

  /**
   * A connection of {@code dataSource} in auto-commit mode, whatever the pool's default: the store
   * commits each statement itself, or a transaction it ends itself ({@link #writeRecord}). The pool
   * restores its own default when it takes the connection back (HikariCP does). The caller closes it.
   *
   * @throws SQLException when no connection can be had or set so (none is left open then)
   */
  public static Connection borrow(DataSource dataSource) throws SQLException {
    Connection c = dataSource.getConnection();
    try {
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true);
      }
      return c;
    } catch (SQLException | RuntimeException e) {
      c.close();
      throw e;
    }
  }

  /** {@code work} on a connection in auto-commit mode. */
  public <T> T read(String what, Work<T> work) {
    try (Connection c = borrow(dataSource)) {
      return work.run(c);
    } catch (SQLException e) {
      throw translate(what, e);
    }
  }

  /**
   * {@code work} as one transaction that first takes the lock of record {@code id}; committed only
   * if it returns.
   */
  public <T> T writeRecord(String what, String id, Work<T> work) {
    try (Connection c = borrow(dataSource)) {
      c.setAutoCommit(false);
      try {
        Rows.execute(c, tables.recordLock(), tables.recordLockKey(id));
        T result = work.run(c);
        c.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      } finally {
        c.setAutoCommit(true);
      }
    } catch (SQLException e) {
      throw translate(what, e);
    }
  }

  /** The store's exception for a database error during {@code what}. */
  public static RcrtException translate(String what, SQLException e) {
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    if (state.equals("22P05") || state.equals("22021")) {
      return new ValidationException(what + ": PostgreSQL cannot store this text (" + e.getMessage()
          + "); JSON strings holding \\u0000 are refused by jsonb");
    }
    boolean unavailable = state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03");
    return new PostgresStoreException(
        unavailable ? StoreErrorCode.STORE_UNAVAILABLE.code() : StoreErrorCode.STORE_FAILED.code(),
        what + " failed in PostgreSQL [" + (state.isEmpty() ? "no SQLSTATE" : state) + "]: " + e.getMessage(),
        unavailable || state.equals("40001") || state.equals("40P01"),
        e);
  }
}
