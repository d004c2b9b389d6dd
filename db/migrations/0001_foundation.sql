-- Users who sign in to the dashboard.
CREATE TABLE users (
	id            TEXT PRIMARY KEY,
	email         TEXT NOT NULL UNIQUE COLLATE NOCASE,
	password_hash TEXT NOT NULL,
	created_at    INTEGER NOT NULL
);

-- A project is one docs repository and its traffic.
CREATE TABLE projects (
	id             TEXT PRIMARY KEY,
	name           TEXT NOT NULL,
	repository     TEXT NOT NULL,
	ref            TEXT NOT NULL DEFAULT 'main',
	model          TEXT NOT NULL DEFAULT '',
	owner_id       TEXT REFERENCES users(id) ON DELETE SET NULL,
	webhook_url    TEXT NOT NULL DEFAULT '',
	webhook_secret TEXT NOT NULL DEFAULT '',
	draft_prs      INTEGER NOT NULL DEFAULT 0,
	allowed_domains TEXT NOT NULL DEFAULT '',
	created_at     INTEGER NOT NULL,
	updated_at     INTEGER NOT NULL
);

CREATE TABLE project_members (
	project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	created_at INTEGER NOT NULL,
	PRIMARY KEY (project_id, user_id)
);
CREATE INDEX project_members_user_idx ON project_members(user_id);

-- API keys: only the SHA-256 of the key is kept.
CREATE TABLE api_keys (
	id           TEXT PRIMARY KEY,
	project_id   TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	name         TEXT NOT NULL,
	hash         BLOB NOT NULL UNIQUE,
	last_four    TEXT NOT NULL,
	scope        TEXT NOT NULL CHECK (scope IN ('read', 'write')),
	created_at   INTEGER NOT NULL,
	expires_at   INTEGER,
	last_used_at INTEGER,
	revoked_at   INTEGER
);
CREATE INDEX api_keys_project_idx ON api_keys(project_id);

-- The table alexedwards/scs/sqlite3store expects.
CREATE TABLE sessions (
	token  TEXT PRIMARY KEY,
	data   BLOB NOT NULL,
	expiry REAL NOT NULL
);
CREATE INDEX sessions_expiry_idx ON sessions(expiry);
