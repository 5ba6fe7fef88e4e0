package dev.rcrt.spring.boot.autoconfigure;

import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.EmbeddingProvider;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.postgres.PostgresBreadcrumbStore;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The store, when the application defines no {@link BreadcrumbStore}: PostgreSQL first (imported
 * first, so the in-memory fallback sees its bean), then memory. Spring closes the PostgreSQL store
 * (its listener) when the context closes; the {@code DataSource} stays the application's. An {@link EmbeddingProvider} bean,
 * when there is one, gives the store search by meaning.
 */
final class StoreConfigurations {
  private StoreConfigurations() {}

  /** PostgreSQL through the application's {@code DataSource}; {@code rcrt.store.type} auto or postgres. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(PostgresBreadcrumbStore.class)
  @ConditionalOnBean(DataSource.class)
  @ConditionalOnExpression("!'${rcrt.store.type:auto}'.equalsIgnoreCase('memory')")
  static class Postgres {
    @Bean
    @ConditionalOnMissingBean(BreadcrumbStore.class)
    PostgresBreadcrumbStore rcrtBreadcrumbStore(DataSource dataSource, RcrtProperties properties, ObjectProvider<EmbeddingProvider> embeddings) {
      PostgresBreadcrumbStore.Builder b = PostgresBreadcrumbStore.builder(dataSource).schema(properties.getStore().getSchema());
      embeddings.ifAvailable(b::embeddings);
      return b.build();
    }
  }

  /** In memory, when no other store was configured. */
  @Configuration(proxyBeanMethods = false)
  static class Memory {
    @Bean
    @ConditionalOnMissingBean(BreadcrumbStore.class)
    InMemoryBreadcrumbStore rcrtBreadcrumbStore(RcrtProperties properties, ObjectProvider<EmbeddingProvider> embeddings) {
      if (properties.getStore().getType() == RcrtProperties.StoreType.POSTGRES) {
        throw new IllegalStateException(
            "rcrt.store.type=postgres needs dev.rcrt:rcrt-postgres on the class path and a DataSource bean"
                + " (set spring.datasource.url, or define one); or set rcrt.store.type=memory");
      }
      InMemoryBreadcrumbStore.Builder b = InMemoryBreadcrumbStore.builder();
      embeddings.ifAvailable(b::embeddings);
      return b.build();
    }
  }
}
