package dev.rcrt.testing;

import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.EmbeddingProvider;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import java.time.Clock;

class InMemoryVectorSearchContractTest extends VectorSearchContract {
  @Override
  protected BreadcrumbStore newStore(Clock clock, EmbeddingProvider provider) {
    return InMemoryBreadcrumbStore.builder().clock(clock).embeddings(provider).build();
  }
}
