-- A job merged from Folio's review page: when, and the commits that say what
-- was merged (the ref's head before the merge and the branch's tip), so the
-- merged diff can be shown again after the branch is gone from the ref's view.
ALTER TABLE jobs ADD COLUMN merged_at   INTEGER;
ALTER TABLE jobs ADD COLUMN merge_base  TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN merge_head  TEXT NOT NULL DEFAULT '';
