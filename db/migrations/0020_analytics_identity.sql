-- Visitor identity is one function of (project, IP, user agent, UTC day) in
-- every process and at every time: each day's key is derived from one
-- per-install secret (HMAC(secret, day)), created once, instead of a random
-- key per day that was deleted after two days (a later process, or an
-- import of an older log, then gave the same visitor another id).
DROP TABLE analytics_salts;

CREATE TABLE analytics_secret (
	id     INTEGER PRIMARY KEY CHECK (id = 1),
	secret BLOB NOT NULL
);
