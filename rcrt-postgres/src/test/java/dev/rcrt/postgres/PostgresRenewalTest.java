package dev.rcrt.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.WorkClaims;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Renewals on the claims' own connection, when the server ends that connection between two of them. */
class PostgresRenewalTest {
  private static final Duration LEASE = Duration.ofSeconds(30);

  @Test
  void aRenewalWhoseConnectionTheServerEndedIsMadeAtOnceOnAFreshOne() throws Exception {
    String schema = TestPostgres.freshSchema();
    try (PostgresBreadcrumbStore store = PostgresBreadcrumbStore.builder(TestPostgres.dataSource()).schema(schema).build()) {
      WorkClaims claims = store.claims().orElseThrow();
      WorkClaims.Claim claim = claims.tryClaim("k", "a", LEASE).orElseThrow();
      assertThat(claims.renewAll(List.of(claim), LEASE)).containsKey("k"); // opens the renewal connection

      // as an operator's pg_terminate_backend, or a server restart, would: only the renewal connection's session
      try (Connection c = TestPostgres.dataSource().getConnection(); Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE pid <> pg_backend_pid()"
              + " AND query LIKE '%" + schema + ".work_claims%unnest%'")) {
        rs.next();
        assertThat(rs.getInt(1)).as("the renewal connection's session, ended").isEqualTo(1);
      }

      assertThat(claims.renewAll(List.of(claim), LEASE)).as("renewed on a fresh connection, not failed until the next tick")
          .containsKey("k");
      assertThat(claims.tryClaim("k", "b", LEASE)).as("still held").isEmpty();
    }
  }
}
