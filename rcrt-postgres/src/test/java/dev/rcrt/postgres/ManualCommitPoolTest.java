package dev.rcrt.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbUpdate;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.core.WorkClaims;
import dev.rcrt.testing.RecordedEvents;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A host's pool whose connections are not in auto-commit (HikariCP's {@code autoCommit=false}, as
 * Spring Boot applications under JPA often configure it): the store commits what it writes all the
 * same, its events and wake-ups arrive, and its claims hold, rather than every write being rolled
 * back when the pool takes its connection back.
 */
class ManualCommitPoolTest {
  private static final Duration WITHIN = Duration.ofSeconds(60);
  /** A poll far past WITHIN: what a reader sees in time came by a wake-up. */
  private static final Duration NEVER = Duration.ofMinutes(10);

  private HikariDataSource manual;

  @BeforeEach
  void pool() {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(TestPostgres.jdbcUrl());
    config.setPoolName("rcrt-test-manual-commit");
    config.setAutoCommit(false);
    config.setMaximumPoolSize(10);
    config.setMinimumIdle(0);
    manual = new HikariDataSource(config);
  }

  @AfterEach
  void close() {
    manual.close();
  }

  private PostgresBreadcrumbStore on(javax.sql.DataSource ds, String schema, Duration poll) {
    return PostgresBreadcrumbStore.builder(ds).schema(schema).pollInterval(poll).build();
  }

  @Test
  void writesOnAPoolWithoutAutoCommitAreCommittedAndWakeReadersElsewhere() throws Exception {
    String schema = TestPostgres.freshSchema();
    try (PostgresBreadcrumbStore writer = on(manual, schema, Duration.ofMillis(100));
        PostgresBreadcrumbStore reader = on(TestPostgres.dataSource(), schema, NEVER)) {
      RecordedEvents seen = new RecordedEvents();
      try (Subscription ignored = reader.subscribe(Selector.schema("note.v1"), seen)) {
        Breadcrumb created = writer.create(BreadcrumbCreate.builder("note.v1", "kept").build());
        assertThat(seen.awaitCount(1, WITHIN)).as("the create's event, by a wake-up").isTrue();
        assertThat(reader.get(created.id())).as("committed: another pool's session reads it").isPresent();
        writer.update(created.id(), 1, BreadcrumbUpdate.ofContext(RcrtJson.parse("{\"v\":2}")));
        assertThat(seen.awaitCount(2, WITHIN)).as("the update's event").isTrue();
        assertThat(reader.get(created.id()).orElseThrow().version()).isEqualTo(2);
        assertThat(writer.delete(created.id())).isTrue();
        assertThat(seen.awaitCount(3, WITHIN)).as("the delete's event").isTrue();
        assertThat(reader.get(created.id())).isEmpty();
      }
    }
  }

  @Test
  void aStoreOnAPoolWithoutAutoCommitHearsOtherWritersAndItsClaimsHold() throws Exception {
    String schema = TestPostgres.freshSchema();
    try (PostgresBreadcrumbStore writer = on(TestPostgres.dataSource(), schema, Duration.ofMillis(100));
        PostgresBreadcrumbStore reader = on(manual, schema, NEVER)) {
      RecordedEvents seen = new RecordedEvents();
      try (Subscription ignored = reader.subscribe(Selector.schema("note.v1"), seen)) {
        for (int i = 0; i < 3; i++) {
          writer.create(BreadcrumbCreate.builder("note.v1", "n" + i).build());
          assertThat(seen.awaitCount(i + 1, WITHIN)).as("event %d, by a wake-up", i).isTrue();
        }
      }
      WorkClaims mine = reader.claims().orElseThrow();
      WorkClaims theirs = writer.claims().orElseThrow();
      assertThat(mine.attempt("job:1", "manual", Duration.ofMinutes(1)).claim()).as("taken").isNotNull();
      assertThat(theirs.attempt("job:1", "other", Duration.ofMinutes(1)).claim()).as("held by the first, as every session sees").isNull();
    }
  }
}
