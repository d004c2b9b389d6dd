-- Agent jobs. A job works in turns: each turn answers the prompts given to
-- it; a follow-up on a busy job waits for the next turn (turn + 1).
CREATE TABLE jobs (
	id            TEXT PRIMARY KEY,
	project_id    TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	status        TEXT NOT NULL CHECK (status IN ('active', 'completed', 'failed', 'archived')),
	repository    TEXT NOT NULL,
	ref           TEXT NOT NULL,
	model         TEXT NOT NULL,
	branch        TEXT NOT NULL,
	pr_link       TEXT NOT NULL DEFAULT '',
	error_code    TEXT NOT NULL DEFAULT '',
	error_message TEXT NOT NULL DEFAULT '',
	turn          INTEGER NOT NULL DEFAULT 1,  -- the turn being worked on, or the last one
	recovery      INTEGER NOT NULL DEFAULT 0,  -- times the sweep re-enqueued this turn
	attempts      INTEGER NOT NULL DEFAULT 0,  -- runs started for this turn
	lease_owner   TEXT NOT NULL DEFAULT '',    -- the attempt running this turn, if any
	lease_until   INTEGER,                     -- when that attempt is presumed dead
	created_at    INTEGER NOT NULL,
	updated_at    INTEGER NOT NULL,
	archived_at   INTEGER
);
CREATE INDEX jobs_project_idx ON jobs(project_id, created_at DESC, id DESC);
CREATE INDEX jobs_active_idx ON jobs(status) WHERE status = 'active';

-- The conversation of a job: prompts (attempt = '') and what each run
-- attempt said. Messages of an attempt become part of the history (kept)
-- only when the attempt succeeds; prompts dropped by a cancel stay visible.
CREATE TABLE job_messages (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	job_id       TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
	turn         INTEGER NOT NULL,
	attempt      TEXT NOT NULL DEFAULT '',
	role         TEXT NOT NULL,
	content      TEXT NOT NULL,
	tool_calls   TEXT NOT NULL DEFAULT '',
	tool_call_id TEXT NOT NULL DEFAULT '',
	tool_name    TEXT NOT NULL DEFAULT '',
	is_error     INTEGER NOT NULL DEFAULT 0,
	kept         INTEGER NOT NULL DEFAULT 0,
	dropped      INTEGER NOT NULL DEFAULT 0,
	created_at   INTEGER NOT NULL
);
CREATE INDEX job_messages_job_idx ON job_messages(job_id, turn, id);

-- Idempotency-Key of job creation, honoured for 24 hours.
CREATE TABLE idempotency_keys (
	project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	key        TEXT NOT NULL,
	body_hash  BLOB NOT NULL,
	job_id     TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
	created_at INTEGER NOT NULL,
	UNIQUE (project_id, key) -- a UNIQUE violation is what db.isUniqueViolation recognises
);

-- Every attempt to deliver a webhook event.
CREATE TABLE webhook_deliveries (
	id          TEXT PRIMARY KEY,
	project_id  TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	job_id      TEXT NOT NULL,
	event_id    TEXT NOT NULL,
	attempt     INTEGER NOT NULL,
	url         TEXT NOT NULL,
	status_code INTEGER NOT NULL DEFAULT 0,
	error       TEXT NOT NULL DEFAULT '',
	duration_ms INTEGER NOT NULL,
	created_at  INTEGER NOT NULL
);
CREATE INDEX webhook_deliveries_project_idx ON webhook_deliveries(project_id, created_at DESC);
