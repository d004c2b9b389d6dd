-- What a job's runs used of the model, split (issue 26): the prompt's tokens,
-- among them those read from the provider's prompt cache and written to it,
-- and the completion's; and the cost in millionths of a US dollar where the
-- model's price is configured, NULL once a run's cost could not be known.
-- The jobs of before counted tokens only: their cost is not known.
ALTER TABLE jobs ADD COLUMN input_tokens       INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN output_tokens      INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN cached_tokens      INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN cache_write_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN cost_micros        INTEGER DEFAULT 0;
UPDATE jobs SET cost_micros = NULL WHERE tokens > 0;

-- What the model call behind each agent reply used, as JSON
-- ({"inputTokens","cachedTokens","cacheWriteTokens","outputTokens"}): its
-- input is the size of that request. '' for every other message, and for
-- the replies of before.
ALTER TABLE job_messages ADD COLUMN usage TEXT NOT NULL DEFAULT '';
