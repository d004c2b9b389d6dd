-- Webhook events. Every status change of a job counts in status_changes,
-- in the transaction that makes it; when the job's project has a webhook,
-- the same transaction records the change as an event numbered by that
-- count. A job's events are delivered one at a time in order of sequence:
-- only the oldest pending one may be tried, under a lease (lease_owner,
-- until next_attempt_at). Jobs from before this migration count from here.
ALTER TABLE jobs ADD COLUMN status_changes INTEGER NOT NULL DEFAULT 0;

CREATE TABLE webhook_events (
	id              TEXT PRIMARY KEY,          -- the event's id in its body, the same on every attempt
	project_id      TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	job_id          TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
	sequence        INTEGER NOT NULL,          -- jobs.status_changes after this change: 1, 2, 3, ...
	job             TEXT NOT NULL,             -- the job as the change left it (JSON): the body shows it
	state           TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'abandoned')),
	attempts        INTEGER NOT NULL DEFAULT 0,
	next_attempt_at INTEGER NOT NULL,          -- when it may be tried (again); while leased, when the lease runs out
	lease_owner     TEXT NOT NULL DEFAULT '',  -- the delivery that holds it, if any
	created_at      INTEGER NOT NULL,
	finished_at     INTEGER,                   -- when it was delivered or given up
	UNIQUE (job_id, sequence)
);
-- The sweep looks every few seconds for pending events whose delivery was lost.
CREATE INDEX webhook_events_due_idx ON webhook_events(next_attempt_at) WHERE state = 'pending';

-- Which event each delivery attempt carried, for the admin's log.
ALTER TABLE webhook_deliveries ADD COLUMN sequence INTEGER NOT NULL DEFAULT 0;
