-- A fleet's members hold claims under 'member:<group>:<owner>' while they live (WorkClaims.holders
-- lists them). The primary key's index cannot serve a prefix under the database's default
-- collation; this partial index holds only those few keys, so listing them reads no other claim.
CREATE INDEX work_claims_members ON work_claims (key) WHERE key LIKE 'member:%';
