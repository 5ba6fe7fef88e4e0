-- Leases for work many processes compete for (tool requests): one row per key, taken over only
-- after its lease has run out; token grows with every claim (fencing).
CREATE TABLE work_claims (
  key        text PRIMARY KEY,
  owner      text NOT NULL,
  token      bigint NOT NULL,
  expires_at timestamptz NOT NULL,
  done       boolean NOT NULL DEFAULT false
);
CREATE INDEX work_claims_done ON work_claims (expires_at) WHERE done;
