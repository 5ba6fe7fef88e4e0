package dev.rcrt.testing;

import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import java.time.Clock;

class InMemoryBreadcrumbStoreContractTest extends BreadcrumbStoreContract {
  @Override
  protected BreadcrumbStore newStore(Clock clock) {
    return InMemoryBreadcrumbStore.builder().clock(clock).build();
  }
}
