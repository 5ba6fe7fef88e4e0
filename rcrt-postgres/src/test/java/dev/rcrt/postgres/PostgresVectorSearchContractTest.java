package dev.rcrt.postgres;

import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.EmbeddingProvider;
import dev.rcrt.testing.VectorSearchContract;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;

/** Search by meaning on PostgreSQL passes the contract, with the index searched exactly and through its HNSW graph. */
class PostgresVectorSearchContractTest {
  private static final List<PostgresBreadcrumbStore> OPENED = new ArrayList<>();

  static BreadcrumbStore store(Clock clock, EmbeddingProvider provider, int exactBelow) {
    PostgresBreadcrumbStore store = PostgresBreadcrumbStore.builder(TestPostgres.dataSource())
        .schema(TestPostgres.freshSchema())
        .clock(clock)
        .pollInterval(Duration.ofMillis(200))
        .embeddings(provider)
        .exactVectorSearchBelow(exactBelow)
        .build();
    OPENED.add(store);
    return store;
  }

  @AfterEach
  void closeStores() {
    OPENED.forEach(PostgresBreadcrumbStore::close);
    OPENED.clear();
  }

  @Nested
  class Exact extends VectorSearchContract {
    @Override
    protected BreadcrumbStore newStore(Clock clock, EmbeddingProvider provider) {
      return store(clock, provider, Integer.MAX_VALUE);
    }
  }

  @Nested
  class Hnsw extends VectorSearchContract {
    @Override
    protected BreadcrumbStore newStore(Clock clock, EmbeddingProvider provider) {
      return store(clock, provider, 0);
    }
  }
}
