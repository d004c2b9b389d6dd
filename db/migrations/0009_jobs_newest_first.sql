-- Jobs list newest first, and two created in the same millisecond in the
-- order they were inserted (rowid) rather than by their random ids. The
-- index, scanned backwards, gives exactly that order.
DROP INDEX jobs_project_idx;
CREATE INDEX jobs_project_idx ON jobs(project_id, created_at);
