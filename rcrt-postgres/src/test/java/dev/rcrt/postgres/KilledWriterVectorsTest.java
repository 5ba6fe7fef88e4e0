package dev.rcrt.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.Selector;
import dev.rcrt.testing.TestEmbeddings;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A writer process SIGKILLed with its records written but not embedded: the next store on the
 * table embeds them (its start-up sweep), so no record is lost to search by meaning.
 */
class KilledWriterVectorsTest {
  private static final int RECORDS = 20;

  @Test
  void recordsAKilledWriterLeftUnembeddedAreEmbeddedByTheNextStore() throws Exception {
    String schema = TestPostgres.freshSchema();
    ProcessBuilder pb = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"),
        "-cp", System.getProperty("java.class.path"), KilledWriterMain.class.getName(), schema, Integer.toString(RECORDS));
    pb.environment().put("RCRT_TEST_POSTGRES_URL", TestPostgres.jdbcUrl());
    pb.redirectErrorStream(true);
    Process writer = pb.start();
    try (BufferedReader out = new BufferedReader(new InputStreamReader(writer.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = out.readLine()) != null && !line.contains("WRITTEN")) {
        // the store's start-up logging
      }
      assertThat(line).as("the writer wrote its records").isNotNull();
      writer.destroyForcibly(); // SIGKILL: its queue of records to embed dies with it
      assertThat(writer.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
    try (Connection c = TestPostgres.dataSource().getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM " + schema + ".breadcrumb_vectors")) {
      rs.next();
      assertThat(rs.getLong(1)).as("nothing was embedded before the kill").isZero();
    }

    try (PostgresBreadcrumbStore next = PostgresBreadcrumbStore.builder(TestPostgres.dataSource()).schema(schema)
        .pollInterval(Duration.ofMillis(100)).embeddings(new TestEmbeddings()).build()) {
      // the wait covers what the store's start found without a vector: one wait, then one search
      assertThat(next.vectorSearch().orElseThrow().awaitIndexed(Duration.ofSeconds(60))).isTrue();
      Set<String> found = new HashSet<>();
      next.vectorSearch().orElseThrow().nearest("quasar", RECORDS, Selector.schema("document.v1")).forEach(b -> found.add(b.title()));
      assertThat(found).hasSize(RECORDS);
    }
  }
}
