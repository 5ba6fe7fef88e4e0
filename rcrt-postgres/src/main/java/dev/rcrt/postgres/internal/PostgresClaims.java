package dev.rcrt.postgres.internal;

import dev.rcrt.core.WorkClaims;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * {@link WorkClaims} in the {@code work_claims} table: each operation is one statement, atomic
 * under PostgreSQL's row lock ({@code INSERT … ON CONFLICT DO UPDATE … WHERE} the lease has run
 * out), so any number of processes can compete. Times come from the store's clock.
 */
public final class PostgresClaims implements WorkClaims {
  private final Transactions tx;
  private final DataSource dataSource;
  private final String table;
  private final Clock clock;
  private final Object renewing = new Object();
  private @Nullable Connection renewal; // guarded by renewing
  private boolean closed; // guarded by renewing

  public PostgresClaims(Transactions tx, DataSource dataSource, Tables tables, Clock clock) {
    this.tx = tx;
    this.dataSource = dataSource;
    this.table = tables.schema + ".work_claims";
    this.clock = clock;
  }

  @Override
  public Optional<Claim> tryClaim(String key, String owner, Duration lease) {
    return Optional.ofNullable(attempt(key, owner, lease).claim());
  }

  /**
   * One statement: the claim's upsert, and, in the same statement, the key's row as it stood when
   * the statement began (who holds it until when, or that it is completed). A row another worker
   * wrote after that moment reads as neither: its caller looks again.
   */
  @Override
  public Attempt attempt(String key, String owner, Duration lease) {
    Instant now = clock.instant();
    Instant until = now.plus(lease);
    return tx.read("claim '" + key + "'", c -> {
      try (PreparedStatement q = c.prepareStatement(
          "WITH taken AS (INSERT INTO " + table + " AS w (key, owner, token, expires_at) VALUES (?, ?, 1, ?)"
              + " ON CONFLICT (key) DO UPDATE SET owner = EXCLUDED.owner, token = w.token + 1, expires_at = EXCLUDED.expires_at"
              + " WHERE NOT w.done AND w.expires_at <= ? RETURNING token)"
              + " SELECT (SELECT token FROM taken), w.expires_at, w.done FROM (VALUES (1)) one LEFT JOIN" // the row is read only when not taken
              + " (SELECT expires_at, done FROM " + table + " WHERE key = ? AND NOT EXISTS (SELECT FROM taken)) w ON true")) {
        Rows.bind(q, key, owner, Rows.at(until), Rows.at(now), key);
        try (ResultSet rs = q.executeQuery()) {
          rs.next();
          long token = rs.getLong(1);
          if (!rs.wasNull()) {
            return new Attempt(new Claim(key, owner, token, until), null, false);
          }
          OffsetDateTime expires = rs.getObject(2, OffsetDateTime.class);
          boolean done = rs.getBoolean(3);
          if (done) {
            return new Attempt(null, null, true);
          }
          return expires != null && expires.toInstant().isAfter(now) ? new Attempt(null, expires.toInstant(), false) : new Attempt(null, null, false);
        }
      }
    });
  }

  /**
   * Extends the claim while its token is unchanged (nobody took the key over), it is not completed
   * and not given back: a holder whose renewal came late, after its lease ran out with nobody
   * taking over, keeps the claim, since nobody else could act meanwhile.
   */
  @Override
  public Optional<Claim> renew(Claim claim, Duration lease) {
    return tx.read("renew claim '" + claim.key() + "'", c -> Optional.ofNullable(renewOn(c, List.of(claim), lease).get(claim.key())));
  }

  /**
   * One {@code UPDATE … FROM unnest(keys, tokens)} for all of {@code claims}, on a connection of
   * its own: a worker's renewals cost one statement per tick and never wait for a pooled connection
   * behind the worker's other statements (a busy pool would otherwise let a live holder's lease run
   * out). The connection is taken from the store's data source on first use and closed with the
   * store; a renewal that fails on it is tried once more at once on a fresh one.
   */
  @Override
  public Map<String, Claim> renewAll(List<Claim> claims, Duration lease) {
    if (claims.isEmpty()) {
      return Map.of();
    }
    synchronized (renewing) {
      if (closed) { // the store was closed before its last holder stopped: the pool, as any other call
        return tx.read("renew " + claims.size() + " claims", c -> renewOn(c, claims, lease));
      }
      try {
        if (renewal == null) {
          renewal = renewalConnection();
        }
        try {
          // no validation first (Connection.isValid is a round trip of its own: it doubled every renewal's exposure to a
          // busy server or machine); a failure is met by trying once more at once on a fresh connection, which a renewal
          // allows (it only moves the expiry of claims whose token is unchanged, so running it twice changes nothing)
          return renewOn(renewal, claims, lease);
        } catch (SQLException broken) {
          closeRenewal();
          renewal = renewalConnection();
          return renewOn(renewal, claims, lease);
        }
      } catch (SQLException e) {
        closeRenewal();
        throw Transactions.translate("renew " + claims.size() + " claims", e);
      }
    }
  }

  private Map<String, Claim> renewOn(Connection c, List<Claim> claims, Duration lease) throws SQLException {
    Map<String, Claim> byKey = new HashMap<>();
    claims.forEach(claim -> byKey.put(claim.key(), claim));
    Instant until = clock.instant().plus(lease);
    try (PreparedStatement q = c.prepareStatement("UPDATE " + table + " AS w SET expires_at = ?"
        + " FROM unnest(?::text[], ?::bigint[]) AS r(key, token)"
        + " WHERE w.key = r.key AND w.token = r.token AND NOT w.done AND w.expires_at > '-infinity' RETURNING w.key")) {
      q.setObject(1, Rows.at(until));
      q.setArray(2, c.createArrayOf("text", claims.stream().map(Claim::key).toArray()));
      q.setArray(3, c.createArrayOf("bigint", claims.stream().map(Claim::token).toArray()));
      Map<String, Claim> renewed = new HashMap<>();
      try (ResultSet rs = q.executeQuery()) {
        while (rs.next()) {
          Claim was = byKey.get(rs.getString(1));
          if (was != null) {
            renewed.put(was.key(), new Claim(was.key(), was.owner(), was.token(), until));
          }
        }
      }
      return renewed;
    }
  }

  private Connection renewalConnection() throws SQLException {
    return Transactions.borrow(dataSource);
  }

  private void closeRenewal() {
    if (renewal != null) {
      try {
        renewal.close();
      } catch (SQLException ignored) {
        // a broken connection: the pool replaces it
      }
      renewal = null;
    }
  }

  /** Gives the renewal connection back to the data source; later renewals use the pool. Idempotent. */
  public void close() {
    synchronized (renewing) {
      closed = true;
      closeRenewal();
    }
  }

  @Override
  public void complete(Claim claim) {
    Instant now = clock.instant();
    tx.read("complete claim '" + claim.key() + "'", c -> Rows.update(c,
        "INSERT INTO " + table + " AS w (key, owner, token, expires_at, done) VALUES (?, ?, ?, ?, true)"
            + " ON CONFLICT (key) DO UPDATE SET done = true, expires_at = EXCLUDED.expires_at",
        claim.key(), claim.owner(), claim.token(), Rows.at(now)));
  }

  @Override
  public void release(Claim claim) {
    tx.read("release claim '" + claim.key() + "'", c -> Rows.update(c,
        "UPDATE " + table + " SET expires_at = '-infinity' WHERE key = ? AND token = ? AND NOT done", claim.key(), claim.token()));
  }

  @Override
  public Optional<Instant> heldUntil(String key) {
    return tx.read("claim '" + key + "'", c -> {
      try (PreparedStatement q = c.prepareStatement("SELECT expires_at FROM " + table + " WHERE key = ? AND NOT done AND expires_at > ?")) {
        Rows.bind(q, key, Rows.at(clock.instant()));
        try (ResultSet rs = q.executeQuery()) {
          return rs.next() ? Optional.of(rs.getObject(1, OffsetDateTime.class).toInstant()) : Optional.empty();
        }
      }
    });
  }

  @Override
  public boolean isCompleted(String key) {
    return tx.read("claim '" + key + "'", c -> Rows.longValue(c, "SELECT 1 FROM " + table + " WHERE key = ? AND done", key) != null);
  }

  /**
   * One statement. Keys under {@value WorkClaims#MEMBER_PREFIX} are read from their own partial
   * index ({@code work_claims_members}, a few rows); any other prefix scans the table.
   */
  @Override
  public List<Claim> holders(String keyPrefix) {
    Instant now = clock.instant();
    String members = keyPrefix.startsWith(MEMBER_PREFIX) ? "key LIKE '" + MEMBER_PREFIX + "%' AND " : ""; // the index's own predicate
    return tx.read("claims under '" + keyPrefix + "'", c -> {
      try (PreparedStatement q = c.prepareStatement("SELECT key, owner, token, expires_at FROM " + table
          + " WHERE " + members + "starts_with(key, ?) AND NOT done AND expires_at > ?")) {
        Rows.bind(q, keyPrefix, Rows.at(now));
        List<Claim> held = new ArrayList<>();
        try (ResultSet rs = q.executeQuery()) {
          while (rs.next()) {
            held.add(new Claim(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getObject(4, OffsetDateTime.class).toInstant()));
          }
        }
        return held;
      }
    });
  }

  /** Deletes completed claims finished before {@code before}. */
  public int purgeCompleted(Instant before) {
    return tx.read("purge completed claims", c -> Rows.update(c, "DELETE FROM " + table + " WHERE done AND expires_at < ?", Rows.at(before)));
  }
}
