package dev.rcrt.postgres.internal;

/**
 * The statements on {@code breadcrumb_vectors} (migration V4): keeping a record version's vector,
 * reading the rows a process's index has not seen, and finding records whose vector is missing,
 * stale or from another model.
 */
public final class VectorTable {
  private final Tables tables;
  private final String vectors;
  private final String sequence;

  public VectorTable(Tables tables) {
    this.tables = tables;
    this.vectors = tables.schema + ".breadcrumb_vectors";
    this.sequence = tables.schema + ".vector_seq";
  }

  /**
   * Keeps {@code (id, version, model, schema_name, tags, vector)} if that version is still the
   * record's current one and the row holds an older version or another model's vector; each kept
   * row takes a new position. Parameters: id, version, model, schema, tags, vector, id, version.
   */
  public String upsert() {
    return "INSERT INTO " + vectors + " (id, version, model, schema_name, tags, vector)"
        + " SELECT ?, ?, ?, ?, ?, ? FROM (SELECT " + tables.writerLock() + ") w WHERE EXISTS (SELECT 1 FROM " + tables.breadcrumbs + " WHERE id = ? AND version = ?)"
        + " ON CONFLICT (id) DO UPDATE SET version = EXCLUDED.version, model = EXCLUDED.model, schema_name = EXCLUDED.schema_name,"
        + " tags = EXCLUDED.tags, vector = EXCLUDED.vector, seq = nextval('" + sequence + "'), tx = pg_current_xact_id()::text::bigint"
        + " WHERE " + vectors + ".version < EXCLUDED.version OR " + vectors + ".model <> EXCLUDED.model"
        + " OR (" + vectors + ".version = EXCLUDED.version AND cardinality(" + vectors + ".vector) <> cardinality(EXCLUDED.vector))";
  }

  /**
   * Rows after position {@code (?, ?)} that every reader may take now (written by transactions
   * below the {@link Tables#horizon(boolean) precise horizon}), whose version is the record's current one, in position
   * order, at most {@code ?}: tx, seq, id, version, model, schema_name, tags, vector.
   */
  public String ready() {
    return tables.horizon(true) + " SELECT v.tx, v.seq, v.id, v.version, v.model, v.schema_name, v.tags, v.vector FROM " + vectors + " v"
        + " JOIN " + tables.breadcrumbs + " b ON b.id = v.id AND b.version = v.version"
        + " WHERE (v.tx, v.seq) > (?, ?) AND v.tx < (SELECT tx FROM horizon)"
        + " ORDER BY v.tx, v.seq LIMIT ?";
  }

  /** The position every reader may have reached now: the newest row below the {@link Tables#horizon(boolean) precise horizon}, or none. */
  public String last() {
    return tables.horizon(true) + " SELECT tx, seq FROM " + vectors + " WHERE tx < (SELECT tx FROM horizon)"
        + " ORDER BY tx DESC, seq DESC LIMIT 1";
  }

  /**
   * Ids of records written at or before write number {@code ?} whose vector row is missing, of an
   * older version or of a model other than {@code ?}, oldest first, at most {@code ?}.
   */
  public String unembedded() {
    return "SELECT b.id FROM " + tables.breadcrumbs + " b LEFT JOIN " + vectors + " v ON v.id = b.id"
        + " WHERE b.seq <= ? AND (v.id IS NULL OR v.version <> b.version OR v.model <> ?) ORDER BY b.seq LIMIT ?";
  }

  /** The newest write number, 0 for none. */
  public String lastWrite() {
    return "SELECT coalesce(max(seq), 0) FROM " + tables.breadcrumbs;
  }
}
