package dev.rcrt.postgres.internal;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.spi.EmbeddingIndexer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * Writes the vectors a process embedded to {@code breadcrumb_vectors} (one batch, each row only if
 * its version is still current), then wakes the process's {@link VectorFeed}; a record that is not
 * embedded gets a row with an empty vector, so that no process embeds that version again.
 */
public final class VectorSink implements EmbeddingIndexer.Sink {
  private final Transactions tx;
  private final VectorTable table;
  private final String model;
  private final Runnable wrote;

  public VectorSink(Transactions tx, VectorTable table, String model, Runnable wrote) {
    this.tx = tx;
    this.table = table;
    this.model = model;
    this.wrote = wrote;
  }

  @Override
  public void accept(List<EmbeddingIndexer.Embedded> vectors) {
    tx.read("keep " + vectors.size() + " vectors", c -> {
      try (PreparedStatement q = c.prepareStatement(table.upsert())) {
        for (EmbeddingIndexer.Embedded e : vectors) {
          float[] v = e.vector();
          Float[] boxed = new Float[v.length];
          for (int i = 0; i < v.length; i++) {
            boxed[i] = v[i];
          }
          bind(c, q, e.breadcrumb(), e.model(), boxed);
          q.addBatch();
        }
        return q.executeBatch().length;
      }
    });
    wrote.run();
  }

  @Override
  public void skipped(Breadcrumb breadcrumb) {
    tx.read("mark breadcrumb '" + breadcrumb.id() + "' as not embedded", c -> {
      try (PreparedStatement q = c.prepareStatement(table.upsert())) {
        bind(c, q, breadcrumb, model, new Float[0]);
        return q.executeUpdate();
      }
    });
    wrote.run();
  }

  private static void bind(Connection c, PreparedStatement q, Breadcrumb b, String model, Float[] vector) throws SQLException {
    Rows.bind(q, b.id(), b.version(), model, b.schemaName(), c.createArrayOf("text", b.tags().toArray()),
        c.createArrayOf("real", vector), b.id(), b.version());
  }
}
