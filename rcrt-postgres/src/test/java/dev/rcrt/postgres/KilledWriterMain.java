package dev.rcrt.postgres;

import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.testing.TestEmbeddings;
import java.time.Duration;

/**
 * A writer process for {@link KilledWriterVectorsTest}: writes {@code count} records to {@code
 * schema} on the test server (RCRT_TEST_POSTGRES_URL) with a model that never answers, prints
 * {@code WRITTEN}, and waits to be killed.
 */
public final class KilledWriterMain {
  private KilledWriterMain() {}

  public static void main(String[] args) throws Exception {
    TestEmbeddings stuck = new TestEmbeddings();
    stuck.hold(); // the model never answers: every write stays queued in this process
    PostgresBreadcrumbStore store = PostgresBreadcrumbStore.builder(TestPostgres.dataSource()).schema(args[0])
        .pollInterval(Duration.ofMillis(100)).embeddings(stuck).build();
    for (int i = 0; i < Integer.parseInt(args[1]); i++) {
      store.create(BreadcrumbCreate.builder("document.v1", "killed writer " + i).context(RcrtJson.object().put("text", "quasar " + i)).build());
    }
    System.out.println("WRITTEN");
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}
