package dev.rcrt.postgres.internal;

import dev.rcrt.core.WorkClaims;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Optional;

/**
 * {@link WorkClaims} in the {@code work_claims} table: each operation is one statement, atomic
 * under PostgreSQL's row lock ({@code INSERT … ON CONFLICT DO UPDATE … WHERE} the lease has run
 * out), so any number of processes can compete. Times come from the store's clock.
 */
public final class PostgresClaims implements WorkClaims {
  private final Transactions tx;
  private final String table;
  private final Clock clock;

  public PostgresClaims(Transactions tx, Tables tables, Clock clock) {
    this.tx = tx;
    this.table = tables.schema + ".work_claims";
    this.clock = clock;
  }

  @Override
  public Optional<Claim> tryClaim(String key, String owner, Duration lease) {
    Instant now = clock.instant();
    Instant until = now.plus(lease);
    return tx.read("claim '" + key + "'", c -> {
      try (PreparedStatement q = c.prepareStatement(
          "INSERT INTO " + table + " AS w (key, owner, token, expires_at) VALUES (?, ?, 1, ?)"
              + " ON CONFLICT (key) DO UPDATE SET owner = EXCLUDED.owner, token = w.token + 1, expires_at = EXCLUDED.expires_at"
              + " WHERE NOT w.done AND w.expires_at <= ? RETURNING token")) {
        Rows.bind(q, key, owner, Rows.at(until), Rows.at(now));
        try (ResultSet rs = q.executeQuery()) {
          return rs.next() ? Optional.of(new Claim(key, owner, rs.getLong(1), until)) : Optional.empty();
        }
      }
    });
  }

  @Override
  public Optional<Claim> renew(Claim claim, Duration lease) {
    Instant now = clock.instant();
    Instant until = now.plus(lease);
    return tx.read("renew claim '" + claim.key() + "'", c -> Rows.update(c,
        "UPDATE " + table + " SET expires_at = ? WHERE key = ? AND token = ? AND NOT done AND expires_at > ?",
        Rows.at(until), claim.key(), claim.token(), Rows.at(now)) == 1
        ? Optional.of(new Claim(claim.key(), claim.owner(), claim.token(), until))
        : Optional.empty());
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

  /** Deletes completed claims finished before {@code before}. */
  public int purgeCompleted(Instant before) {
    return tx.read("purge completed claims", c -> Rows.update(c, "DELETE FROM " + table + " WHERE done AND expires_at < ?", Rows.at(before)));
  }
}
