package dev.rcrt.examples;

import dev.rcrt.core.Subscription;
import dev.rcrt.postgres.PostgresBreadcrumbStore;
import dev.rcrt.tools.ToolRunner;
import java.util.concurrent.CountDownLatch;
import javax.sql.DataSource;

/** A runner process on a PostgreSQL store shared with agents in other processes, as the reference page on PostgreSQL shows it. */
public final class SharedStoreExample {
  private SharedStoreExample() {}

  /** Answers tool requests on the shared store until {@code shutdown} is counted down. */
  static void serve(DataSource dataSource, CountDownLatch shutdown) throws InterruptedException {
    // docs:begin shared
    try (PostgresBreadcrumbStore store = PostgresBreadcrumbStore.builder(dataSource) // the host's pool, e.g. HikariCP
            .schema("rcrt") // tables created or upgraded by Flyway on build()
            .build();
        ToolRunner runner = ToolRunner.builder(store).build();
        Subscription listening = runner.listen()) { // claims each tool.request.v1; one runner of the fleet runs it
      shutdown.await(); // requests are answered on the runner's threads meanwhile
    }
    // docs:end shared
  }
}
