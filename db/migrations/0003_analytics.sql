-- Analytics (CONTRACT §3). Page views are stored dictionary-encoded: a small
-- integer site per project, integer ids for paths and visitors, so a view is
-- a handful of integers (see BENCHMARKS-analytics.md for the size per million).

-- One row per project that has traffic; its integer id keeps views small.
CREATE TABLE analytics_sites (
	id         INTEGER PRIMARY KEY,
	project_id TEXT NOT NULL UNIQUE REFERENCES projects(id) ON DELETE CASCADE
);

-- The paths of a site, each stored once.
CREATE TABLE analytics_paths (
	id      INTEGER PRIMARY KEY,
	site_id INTEGER NOT NULL REFERENCES analytics_sites(id) ON DELETE CASCADE,
	path    TEXT NOT NULL,
	UNIQUE (site_id, path)
);

-- Visitors of a site: only a 16-byte keyed hash, never an IP address.
CREATE TABLE analytics_visitors (
	id      INTEGER PRIMARY KEY,
	site_id INTEGER NOT NULL REFERENCES analytics_sites(id) ON DELETE CASCADE,
	key     BLOB NOT NULL,
	UNIQUE (site_id, key)
);

-- Raw page views, append-only: the source of truth every count is exact over.
-- class: 0 human, 1 ai, 2 aiSearch, 3 aiTraining, 4 bots. No foreign keys, so
-- ingest pays no look-ups; the trigger below removes a deleted site's views.
CREATE TABLE analytics_views (
	id         INTEGER PRIMARY KEY,
	site_id    INTEGER NOT NULL,
	at         INTEGER NOT NULL,
	path_id    INTEGER NOT NULL,
	visitor_id INTEGER NOT NULL,
	class      INTEGER NOT NULL
);
CREATE INDEX analytics_views_site_idx ON analytics_views(site_id, id);

CREATE TRIGGER analytics_sites_delete AFTER DELETE ON analytics_sites BEGIN
	DELETE FROM analytics_views WHERE site_id = old.id;
	DELETE FROM analytics_imported_lines WHERE site_id = old.id;
END;

-- The daily key of the visitor hash (a UTC day number since the epoch). Old
-- days are deleted, so yesterday's visitors cannot be re-identified.
CREATE TABLE analytics_salts (
	day  INTEGER PRIMARY KEY,
	salt BLOB NOT NULL
);

-- Hashes of imported log lines, so importing a file twice counts it once.
CREATE TABLE analytics_imported_lines (
	site_id INTEGER NOT NULL,
	hash    BLOB NOT NULL,
	PRIMARY KEY (site_id, hash)
) WITHOUT ROWID;
