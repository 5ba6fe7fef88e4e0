-- RCRT breadcrumbs on PostgreSQL 13+. Flyway runs this in the store's own schema (search_path).

-- One sequence orders every write: a record's recency and the event log share it, and writers
-- take it under a transaction-scoped advisory lock, so sequence order is commit order.
CREATE SEQUENCE write_seq;

CREATE TABLE breadcrumbs (
  id              text PRIMARY KEY,
  seq             bigint NOT NULL,
  version         bigint NOT NULL,
  schema_name     text,
  tags            text[] NOT NULL,
  context         jsonb NOT NULL,          -- for selectors in SQL
  record          json NOT NULL,           -- the whole record as RCRT wire JSON, byte for byte
  expires_at      timestamptz,             -- the time part of its TTL, if any
  max_reads       bigint,                  -- the read part of its TTL, if any
  reads           bigint NOT NULL DEFAULT 0,
  idempotency_key text UNIQUE
);
CREATE INDEX breadcrumbs_recency ON breadcrumbs (seq DESC);
CREATE INDEX breadcrumbs_schema ON breadcrumbs (schema_name, seq DESC);
CREATE INDEX breadcrumbs_tags ON breadcrumbs USING gin (tags);
CREATE INDEX breadcrumbs_context ON breadcrumbs USING gin (context jsonb_path_ops);
CREATE INDEX breadcrumbs_expiring ON breadcrumbs (expires_at) WHERE expires_at IS NOT NULL OR max_reads IS NOT NULL;

CREATE TABLE breadcrumb_versions (
  id      text NOT NULL REFERENCES breadcrumbs (id) ON DELETE CASCADE,
  version bigint NOT NULL,
  record  json NOT NULL,
  PRIMARY KEY (id, version)
);

-- The event log subscriptions read; NOTIFY only wakes them. Rows older than the store's
-- retention are deleted.
CREATE TABLE breadcrumb_events (
  seq         bigint PRIMARY KEY,
  type        text NOT NULL CHECK (type IN ('CREATED', 'UPDATED', 'DELETED')),
  id          text NOT NULL,
  record      json NOT NULL,
  expires_at  timestamptz,
  max_reads   bigint,
  written_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX breadcrumb_events_written ON breadcrumb_events (written_at);
