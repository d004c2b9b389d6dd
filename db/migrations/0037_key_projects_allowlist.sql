-- Keys across projects and IP allowlists (CONTRACT §4). A key opens the
-- projects listed for it in api_key_projects or, with all_projects, every
-- project its creator (created_by) is a member of when the request comes,
-- those joined later included (none once the creator is gone). allow_ips is the key's allowlist, canonical
-- CIDRs joined by commas ('' is any address). SQLite cannot drop a NOT NULL
-- column a foreign key names, so the table is rebuilt without project_id,
-- whose one project each existing key keeps in api_key_projects.
CREATE TABLE api_keys_new (
	id           TEXT PRIMARY KEY,
	name         TEXT NOT NULL,
	hash         BLOB NOT NULL UNIQUE,
	last_four    TEXT NOT NULL,
	scope        TEXT NOT NULL CHECK (scope IN ('read', 'ingest', 'write')),
	all_projects INTEGER NOT NULL DEFAULT 0 CHECK (all_projects IN (0, 1)),
	created_by   TEXT REFERENCES users(id) ON DELETE SET NULL,
	allow_ips    TEXT NOT NULL DEFAULT '',
	created_at   INTEGER NOT NULL,
	expires_at   INTEGER,
	last_used_at INTEGER,
	revoked_at   INTEGER
);

CREATE TABLE api_key_projects (
	key_id     TEXT NOT NULL REFERENCES api_keys_new(id) ON DELETE CASCADE,
	project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	position   INTEGER NOT NULL, -- the order the projects were given in
	PRIMARY KEY (key_id, project_id)
) WITHOUT ROWID;
CREATE INDEX api_key_projects_project_idx ON api_key_projects(project_id);

INSERT INTO api_keys_new (id, name, hash, last_four, scope, created_at, expires_at, last_used_at, revoked_at)
	SELECT id, name, hash, last_four, scope, created_at, expires_at, last_used_at, revoked_at FROM api_keys;
INSERT INTO api_key_projects (key_id, project_id, position) SELECT id, project_id, 0 FROM api_keys;
DROP TABLE api_keys;
ALTER TABLE api_keys_new RENAME TO api_keys;
CREATE INDEX api_keys_creator_idx ON api_keys(created_by) WHERE all_projects = 1;
