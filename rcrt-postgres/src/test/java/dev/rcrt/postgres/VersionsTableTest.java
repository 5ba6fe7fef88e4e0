package dev.rcrt.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbUpdate;
import dev.rcrt.core.RcrtJson;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import org.junit.jupiter.api.Test;

/**
 * {@code breadcrumb_versions} keeps the versions a record had before an update, and only those:
 * a create writes the record once, and history is the replaced versions and the row, each once,
 * also where a process from before this layout wrote a current version there too.
 */
class VersionsTableTest {
  @Test
  void aCreateWritesNoVersionRowAndAnUpdateKeepsTheVersionItReplaces() throws Exception {
    String schema = TestPostgres.freshSchema();
    try (PostgresBreadcrumbStore store = PostgresBreadcrumbStore.builder(TestPostgres.dataSource()).schema(schema).build()) {
      Breadcrumb v1 = store.create(BreadcrumbCreate.builder("note.v1", "n").context(RcrtJson.parse("{\"n\":1}")).build());
      assertThat(versionRows(schema, v1.id())).as("a record never updated is kept once, as its row").isZero();
      store.update(v1.id(), 1, BreadcrumbUpdate.ofContext(RcrtJson.parse("{\"n\":2}")));
      assertThat(versionRows(schema, v1.id())).isEqualTo(1);
      store.update(v1.id(), 2, BreadcrumbUpdate.ofContext(RcrtJson.parse("{\"n\":3}")));
      assertThat(store.history(v1.id())).extracting(b -> b.context().path("n").asInt()).containsExactly(1, 2, 3);

      // a process of the old layout also wrote the current version as a version row: history still has each version once
      try (Connection c = TestPostgres.dataSource().getConnection();
          PreparedStatement copy = c.prepareStatement("INSERT INTO " + schema + ".breadcrumb_versions (id, version, record)"
              + " SELECT id, version, record FROM " + schema + ".breadcrumbs WHERE id = ?")) {
        copy.setString(1, v1.id());
        copy.executeUpdate();
      }
      assertThat(store.history(v1.id())).extracting(Breadcrumb::version).containsExactly(1L, 2L, 3L);
      store.update(v1.id(), 3, BreadcrumbUpdate.ofContext(RcrtJson.parse("{\"n\":4}")));
      assertThat(store.history(v1.id())).extracting(b -> b.context().path("n").asInt()).containsExactly(1, 2, 3, 4);
    }
  }

  private static int versionRows(String schema, String id) throws Exception {
    try (Connection c = TestPostgres.dataSource().getConnection();
        PreparedStatement q = c.prepareStatement("SELECT count(*) FROM " + schema + ".breadcrumb_versions WHERE id = ?")) {
      q.setString(1, id);
      try (ResultSet rs = q.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }
}
