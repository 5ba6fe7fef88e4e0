package dev.rcrt.postgres;

import dev.rcrt.core.WorkClaims;
import dev.rcrt.testing.WorkClaimsContract;
import java.time.Clock;

/** The PostgreSQL store's claims keep the contract, against a real server. */
class PostgresClaimsContractTest extends WorkClaimsContract {
  @Override
  protected WorkClaims newClaims(Clock clock) {
    return PostgresBreadcrumbStore.builder(TestPostgres.dataSource()).schema(TestPostgres.freshSchema()).clock(clock).build()
        .claims().orElseThrow();
  }
}
