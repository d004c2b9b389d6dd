-- What a job's latest finished turn left (CONTRACT §2): the agent's final
-- answer and the problems the checks still found (a JSON array).
ALTER TABLE jobs ADD COLUMN summary      TEXT;
ALTER TABLE jobs ADD COLUMN problems     TEXT NOT NULL DEFAULT '[]';
-- One record of a merge, on any code host (0013 added merged_at): the ref's
-- head after it and the diff it brought, kept because the branch no longer
-- differs from the ref afterwards and a GitHub branch may be deleted. The
-- branch tip and the ref's head before the merge (0013's merge_head and
-- merge_base) are no longer needed to show it.
ALTER TABLE jobs ADD COLUMN merged_diff  TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs RENAME COLUMN merge_head TO merge_commit;
ALTER TABLE jobs DROP COLUMN merge_base;
