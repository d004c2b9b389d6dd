-- Which agent made each page view (CONTRACT §3, /agents): a dictionary of
-- agents (name and operator, '' when unknown; one table for every site,
-- since an agent is the same everywhere) and its id on each view, 0 for a
-- view no agent is named for (a browser's; views stored before this).
CREATE TABLE analytics_agents (
	id       INTEGER PRIMARY KEY,
	name     TEXT NOT NULL,
	operator TEXT NOT NULL,
	UNIQUE (name, operator)
);
ALTER TABLE analytics_views ADD COLUMN agent_id INTEGER NOT NULL DEFAULT 0;
