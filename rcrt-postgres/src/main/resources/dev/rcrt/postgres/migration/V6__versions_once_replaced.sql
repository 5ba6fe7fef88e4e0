-- breadcrumb_versions keeps only the versions a record had before an update; the current version
-- is the breadcrumbs row itself, and history reads both. A create wrote the record twice (the row
-- and its first version, each row of the second checked against the first's key) though most
-- records, a run's messages, rounds, requests and responses among them, are never updated
-- (DurableTurnLoad: five creates a turn, no update). Versions that are also the current row go.
DELETE FROM breadcrumb_versions v USING breadcrumbs b WHERE v.id = b.id AND v.version = b.version;
