-- Search by meaning. One row per record: the unit vector of the version it was embedded from, the
-- model that made it, and that version's schema and tags (each process's index filters by them
-- before ranking). A row with an empty vector says the version is not embedded (its policy skips
-- it, or the model refused its text), so that no process embeds it again.
--
-- The vectors are the truth shared by the fleet; every process keeps an in-memory index (Lucene
-- HNSW) in step with this table, reading rows in (tx, seq) order below the oldest transaction in
-- progress, as the event log is read. A pgvector column and an HNSW index in the database could
-- answer the same searches: the seam is here (a `vector(dimensions)` column beside `vector`) and
-- in PostgresBreadcrumbStore's vector search, but pgvector is not packaged for every PostgreSQL this
-- store supports, so it is not used.
CREATE SEQUENCE vector_seq;

CREATE TABLE breadcrumb_vectors (
  id          text PRIMARY KEY REFERENCES breadcrumbs (id) ON DELETE CASCADE,
  version     bigint NOT NULL,
  model       text NOT NULL,
  schema_name text,
  tags        text[] NOT NULL,
  vector      real[] NOT NULL,
  seq         bigint NOT NULL DEFAULT nextval('vector_seq'),
  tx          bigint NOT NULL DEFAULT (pg_current_xact_id()::text::bigint)
);
CREATE INDEX breadcrumb_vectors_position ON breadcrumb_vectors (tx, seq);
