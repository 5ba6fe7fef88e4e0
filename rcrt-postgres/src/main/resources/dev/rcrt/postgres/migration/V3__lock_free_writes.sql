-- Writes no longer queue behind one store-wide lock. The event log stays gap-free without it:
-- every event row records the transaction that wrote it (pg_current_xact_id(), PostgreSQL 13+),
-- and readers take only events of transactions older than the oldest one still in progress
-- (pg_snapshot_xmin(pg_current_snapshot())), in (tx, seq) order. A transaction that commits late
-- holds readers back until it ends instead of having its event skipped. Writes to one record take
-- a transaction-scoped advisory lock on that record before they get a transaction id, so its
-- events' order is its commit order.
ALTER TABLE breadcrumb_events ADD COLUMN tx bigint NOT NULL DEFAULT 0;
ALTER TABLE breadcrumb_events ALTER COLUMN tx SET DEFAULT (pg_current_xact_id()::text::bigint);
CREATE INDEX breadcrumb_events_position ON breadcrumb_events (tx, seq);
ALTER TABLE breadcrumbs ALTER COLUMN seq SET DEFAULT nextval('write_seq');
