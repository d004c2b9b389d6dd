-- Searches and feedback (CONTRACT §3, "Searches and feedback"): what readers
-- search for, which result they open, and whether a page helped them. Small
-- next to page views, so kept plainly, one row an event, per site; a site's
-- rows go with it.

-- One search: the term as grouped (white space collapsed, lower case) and
-- how many results the docs site's search box showed for it.
CREATE TABLE analytics_searches (
	id      INTEGER PRIMARY KEY,
	site_id INTEGER NOT NULL REFERENCES analytics_sites(id) ON DELETE CASCADE,
	at      INTEGER NOT NULL,
	query   TEXT NOT NULL,
	results INTEGER NOT NULL
);
CREATE INDEX analytics_searches_site_at_idx ON analytics_searches(site_id, at);

-- A result opened from a search: the term (grouped as above) and the page.
CREATE TABLE analytics_search_clicks (
	id      INTEGER PRIMARY KEY,
	site_id INTEGER NOT NULL REFERENCES analytics_sites(id) ON DELETE CASCADE,
	at      INTEGER NOT NULL,
	query   TEXT NOT NULL,
	path    TEXT NOT NULL
);
CREATE INDEX analytics_search_clicks_site_at_idx ON analytics_search_clicks(site_id, at);

-- "Was this page helpful?" and feedback on a code snippet. helpful is NULL
-- only for a code snippet's feedback that gives none; the optional texts
-- are NULL when not given. status is the review admins move it through.
CREATE TABLE analytics_feedback (
	id         TEXT PRIMARY KEY,
	site_id    INTEGER NOT NULL REFERENCES analytics_sites(id) ON DELETE CASCADE,
	at         INTEGER NOT NULL,
	path       TEXT NOT NULL,
	source     TEXT NOT NULL CHECK (source IN ('contextual', 'thumbs_only', 'code_snippet', 'agent')),
	helpful    INTEGER CHECK (helpful IN (0, 1)),
	comment    TEXT,
	contact    TEXT,
	code       TEXT,
	filename   TEXT,
	lang       TEXT,
	status     TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'in_progress', 'resolved', 'dismissed')),
	status_at  INTEGER,
	CHECK (helpful IS NOT NULL OR source = 'code_snippet'),
	CHECK ((code IS NOT NULL) = (source = 'code_snippet'))
) WITHOUT ROWID;
CREATE INDEX analytics_feedback_site_at_idx ON analytics_feedback(site_id, at, id);
