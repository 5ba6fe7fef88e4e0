package dev.rcrt.testing;

import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.InMemoryBreadcrumbStore;

class InMemoryBreadcrumbStoreContractTest extends BreadcrumbStoreContract {
  @Override
  protected BreadcrumbStore newStore() {
    return new InMemoryBreadcrumbStore();
  }
}
