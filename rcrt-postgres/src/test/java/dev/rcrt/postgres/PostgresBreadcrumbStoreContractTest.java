package dev.rcrt.postgres;

import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.testing.BreadcrumbStoreContract;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/** The PostgreSQL store passes the contract every store must, unchanged, against a real server. */
class PostgresBreadcrumbStoreContractTest extends BreadcrumbStoreContract {
  private final List<PostgresBreadcrumbStore> opened = new ArrayList<>();

  @Override
  protected BreadcrumbStore newStore(Clock clock) {
    PostgresBreadcrumbStore store = PostgresBreadcrumbStore.builder(TestPostgres.dataSource())
        .schema(TestPostgres.freshSchema())
        .clock(clock)
        .pollInterval(java.time.Duration.ofMillis(200))
        .build();
    opened.add(store);
    return store;
  }

  @AfterEach
  void closeStores() {
    opened.forEach(PostgresBreadcrumbStore::close);
  }
}
