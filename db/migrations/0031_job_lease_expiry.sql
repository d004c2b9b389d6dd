-- The sweep looks every few seconds for runs whose lease ran out and for
-- unclaimed active jobs; these indexes make both a look at nothing when
-- there is nothing to find.
CREATE INDEX jobs_lease_expiry_idx ON jobs(lease_until) WHERE status = 'active' AND lease_owner <> '';
CREATE INDEX jobs_unclaimed_idx ON jobs(updated_at) WHERE status = 'active' AND lease_owner = '';
