package dev.rcrt.testing;

import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.WorkClaims;
import java.time.Clock;

/** The in-memory store's claims keep the contract. */
class MemoryClaimsContractTest extends WorkClaimsContract {
  @Override
  protected WorkClaims newClaims(Clock clock) {
    return InMemoryBreadcrumbStore.builder().clock(clock).build().claims().orElseThrow();
  }
}
