-- Where people come from (CONTRACT §3, /referrers): a dictionary of the
-- sources views came from (the referrer's host, never its path or query;
-- its channel, aiAssistant, search, social or other; the list's name for
-- it, '' when no list names it; one table for every site, since a source
-- is the same everywhere) and its id on each view. 0 is direct: no
-- referrer, or a page of the site itself (and every view stored before
-- Folio kept referrers).
CREATE TABLE analytics_referrers (
	id      INTEGER PRIMARY KEY,
	source  TEXT NOT NULL,
	channel TEXT NOT NULL,
	name    TEXT NOT NULL,
	UNIQUE (source, channel, name)
);
ALTER TABLE analytics_views ADD COLUMN referrer_id INTEGER NOT NULL DEFAULT 0;
