-- What a job's runs have used of the model, over all its turns and attempts.
ALTER TABLE jobs ADD COLUMN steps  INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN tokens INTEGER NOT NULL DEFAULT 0;
