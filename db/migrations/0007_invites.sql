-- Invitations: a one-time link that lets one email address sign up (or, with
-- an account, join) and become a member of one project. Only the SHA-256 of
-- the link's token is kept.
CREATE TABLE invitations (
	id         TEXT PRIMARY KEY,
	project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	email      TEXT NOT NULL COLLATE NOCASE,
	hash       BLOB NOT NULL UNIQUE,
	invited_by TEXT REFERENCES users(id) ON DELETE SET NULL, -- NULL: an operator, from the CLI
	created_at INTEGER NOT NULL,
	expires_at INTEGER NOT NULL,
	used_at    INTEGER,
	used_by    TEXT REFERENCES users(id) ON DELETE SET NULL,
	revoked_at INTEGER
);
CREATE INDEX invitations_project_idx ON invitations(project_id, created_at);
