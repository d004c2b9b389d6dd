-- Drains (CONTRACT §3, "Ingest", 4) and the key a third party may hold for
-- them (§4): API keys gain the scope ingest (the events API and the drains
-- only). SQLite cannot change a CHECK, so the table is rebuilt; nothing
-- refers to it.
CREATE TABLE api_keys_new (
	id           TEXT PRIMARY KEY,
	project_id   TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	name         TEXT NOT NULL,
	hash         BLOB NOT NULL UNIQUE,
	last_four    TEXT NOT NULL,
	scope        TEXT NOT NULL CHECK (scope IN ('read', 'ingest', 'write')),
	created_at   INTEGER NOT NULL,
	expires_at   INTEGER,
	last_used_at INTEGER,
	revoked_at   INTEGER
);
INSERT INTO api_keys_new (id, project_id, name, hash, last_four, scope, created_at, expires_at, last_used_at, revoked_at)
	SELECT id, project_id, name, hash, last_four, scope, created_at, expires_at, last_used_at, revoked_at FROM api_keys;
DROP TABLE api_keys;
ALTER TABLE api_keys_new RENAME TO api_keys;
CREATE INDEX api_keys_project_idx ON api_keys(project_id);

-- A project's drain settings. secret is what Vercel signs deliveries with
-- (x-vercel-signature, an HMAC-SHA1 of the body): checking an HMAC needs
-- the secret itself, so it is kept as it is, in this table only, and never
-- shown again after it is set. vercel_verify is the code Vercel's endpoint
-- verification expects back in the x-vercel-verify header (not a secret).
CREATE TABLE analytics_drains (
	project_id    TEXT PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
	secret        TEXT NOT NULL DEFAULT '',
	vercel_verify TEXT NOT NULL DEFAULT '',
	updated_at    INTEGER NOT NULL
) WITHOUT ROWID;
