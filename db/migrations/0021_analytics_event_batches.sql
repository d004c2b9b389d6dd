-- Idempotency-Key of events batches (CONTRACT §3): a batch retried after a
-- lost answer is stored once. The key is honoured for 24 hours; body_hash
-- tells a retry from another batch under a reused key.
CREATE TABLE analytics_event_batches (
	site_id    INTEGER NOT NULL REFERENCES analytics_sites(id) ON DELETE CASCADE,
	key        TEXT NOT NULL,
	body_hash  BLOB NOT NULL,
	accepted   INTEGER NOT NULL,
	created_at INTEGER NOT NULL,
	PRIMARY KEY (site_id, key)
) WITHOUT ROWID;
CREATE INDEX analytics_event_batches_created_idx ON analytics_event_batches(created_at);
