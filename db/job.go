package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/folio-docs/folio/model"
)

const jobColumns = `id, project_id, status, repository, ref, model, branch, pr_link, error_code, error_message,
	turn, recovery, attempts, lease_owner, lease_until, created_at, updated_at, archived_at, steps, tokens,
	summary, problems, merged_at, merge_commit, status_changes,
	input_tokens, output_tokens, cached_tokens, cache_write_tokens, cost_micros`

func scanJob(s scanner) (Job, error) {
	var j Job
	var created, updated int64
	var lease, archived, merged sql.NullInt64
	var summary sql.NullString
	var cost sql.NullInt64
	err := s.Scan(&j.ID, &j.ProjectID, &j.Status, &j.Repository, &j.Ref, &j.Model, &j.Branch, &j.PRLink,
		&j.ErrorCode, &j.ErrorMessage, &j.Turn, &j.Recovery, &j.Attempts, &j.LeaseOwner, &lease,
		&created, &updated, &archived, &j.Steps, &j.Tokens, &summary, &j.Problems, &merged, &j.MergeCommit, &j.StatusChanges,
		&j.InputTokens, &j.OutputTokens, &j.CachedTokens, &j.CacheWriteTokens, &cost)
	j.CostMicros = fromNullInt(cost)
	j.CreatedAt, j.UpdatedAt = fromMillis(created), fromMillis(updated)
	j.LeaseUntil, j.ArchivedAt, j.MergedAt = fromNullMillis(lease), fromNullMillis(archived), fromNullMillis(merged)
	if summary.Valid {
		j.Summary = &summary.String
	}
	return j, err
}

func now() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }

// CreateJob stores a new active job on turn 1 with its first prompt, and,
// when idem is given, the Idempotency-Key that created it. A live key of the
// same project already stored gives model.ErrConflict.
func (d *DB) CreateJob(ctx context.Context, j Job, prompt string, idem *IdempotencyKey) (Job, error) {
	t := now()
	j.ID, j.Status, j.Turn, j.CreatedAt, j.UpdatedAt = model.NewID(), JobActive, 1, t, t
	j.Branch = "folio/" + j.ID
	err := d.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `/* DB.CreateJob */
			INSERT INTO jobs (id, project_id, status, repository, ref, model, branch, turn, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?)`,
			j.ID, j.ProjectID, j.Status, j.Repository, j.Ref, j.Model, j.Branch, millis(t), millis(t)); err != nil {
			return err
		}
		if err := insertPrompt(ctx, tx, j.ID, 1, prompt, t); err != nil {
			return err
		}
		var err error
		if j, err = countStatusChange(ctx, tx, j.ID); err != nil || idem == nil {
			return err
		}
		return insertIdempotencyKey(ctx, tx, *idem, j.ID, t)
	})
	if isUniqueViolation(err) {
		return Job{}, model.ErrConflict
	}
	if err != nil {
		return Job{}, fmt.Errorf("db: unable to create job: %w", err)
	}
	return j, nil
}

// insertIdempotencyKey stores the key that made a request about jobID; a
// live key of the same project already stored is a unique violation.
func insertIdempotencyKey(ctx context.Context, tx *sql.Tx, idem IdempotencyKey, jobID string, t time.Time) error {
	// An expired key may be reused: forget it first.
	if _, err := tx.ExecContext(ctx, `/* DB.insertIdempotencyKey */
		DELETE FROM idempotency_keys WHERE project_id = ? AND key = ? AND created_at < ?`,
		idem.ProjectID, idem.Key, millis(t.Add(-IdempotencyTTL))); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `/* DB.insertIdempotencyKey */
		INSERT INTO idempotency_keys (project_id, key, body_hash, job_id, created_at) VALUES (?, ?, ?, ?, ?)`,
		idem.ProjectID, idem.Key, idem.BodyHash, jobID, millis(t))
	return err
}

func insertPrompt(ctx context.Context, tx *sql.Tx, jobID string, turn int, prompt string, t time.Time) error {
	_, err := tx.ExecContext(ctx, `/* DB.insertPrompt */
		INSERT INTO job_messages (job_id, turn, role, content, kept, created_at) VALUES (?, ?, 'user', ?, 1, ?)`,
		jobID, turn, prompt, millis(t))
	return err
}

// DeleteJob removes a job that could not be enqueued, so nothing is left half-way.
func (d *DB) DeleteJob(ctx context.Context, id string) error {
	if _, err := d.w.ExecContext(ctx, `/* DB.DeleteJob */ DELETE FROM jobs WHERE id = ?`, id); err != nil {
		return fmt.Errorf("db: unable to delete job %s: %w", id, err)
	}
	return nil
}

// JobByID finds a job of a project.
func (d *DB) JobByID(ctx context.Context, projectID, id string) (Job, error) {
	rctx, err := pointRead(ctx)
	if err != nil {
		return Job{}, fmt.Errorf("db: unable to fetch job %s: %w", id, err)
	}
	j, err := scanJob(d.r.QueryRowContext(rctx, `/* DB.JobByID */
		SELECT `+jobColumns+` FROM jobs WHERE id = ? AND project_id = ?`, id, projectID))
	if errors.Is(err, sql.ErrNoRows) {
		return Job{}, model.ErrJobNotFound
	}
	if err != nil {
		return Job{}, fmt.Errorf("db: unable to fetch job %s: %w", id, err)
	}
	return j, nil
}

// JobViewByID finds a job of a project reading only what the API shows of
// it (jobs.View): ID, Status, Repository, Ref, Model, Branch, PRLink, the
// error, the times and the usage, with ProjectID set to projectID. The
// turn, recovery, attempts and lease are left zero. GET job, the polling
// endpoint, makes this read on every request.
func (d *DB) JobViewByID(ctx context.Context, projectID, id string) (Job, error) {
	rctx, err := pointRead(ctx)
	if err != nil {
		return Job{}, fmt.Errorf("db: unable to fetch job %s: %w", id, err)
	}
	j := Job{ProjectID: projectID}
	var created, updated int64
	var archived, merged sql.NullInt64
	var summary sql.NullString
	var cost sql.NullInt64
	err = d.r.QueryRowContext(rctx, `/* DB.JobViewByID */
		SELECT id, status, repository, ref, model, branch, pr_link, error_code, error_message,
			created_at, updated_at, archived_at, steps, tokens, summary, problems, merged_at,
			input_tokens, output_tokens, cached_tokens, cache_write_tokens, cost_micros
		FROM jobs WHERE id = ? AND project_id = ?`, id, projectID).
		Scan(&j.ID, &j.Status, &j.Repository, &j.Ref, &j.Model, &j.Branch, &j.PRLink, &j.ErrorCode, &j.ErrorMessage,
			&created, &updated, &archived, &j.Steps, &j.Tokens, &summary, &j.Problems, &merged,
			&j.InputTokens, &j.OutputTokens, &j.CachedTokens, &j.CacheWriteTokens, &cost)
	j.CostMicros = fromNullInt(cost)
	if errors.Is(err, sql.ErrNoRows) {
		return Job{}, model.ErrJobNotFound
	}
	if err != nil {
		return Job{}, fmt.Errorf("db: unable to fetch job %s: %w", id, err)
	}
	j.CreatedAt, j.UpdatedAt, j.ArchivedAt, j.MergedAt = fromMillis(created), fromMillis(updated), fromNullMillis(archived), fromNullMillis(merged)
	if summary.Valid {
		j.Summary = &summary.String
	}
	return j, nil
}

// JobProjectID is the project a job belongs to, for callers that know only
// the job (a code host's webhook).
func (d *DB) JobProjectID(ctx context.Context, id string) (string, error) {
	var pid string
	err := d.r.QueryRowContext(ctx, `/* DB.JobProjectID */ SELECT project_id FROM jobs WHERE id = ?`, id).Scan(&pid)
	if errors.Is(err, sql.ErrNoRows) {
		return "", model.ErrJobNotFound
	}
	if err != nil {
		return "", fmt.Errorf("db: unable to fetch job %s: %w", id, err)
	}
	return pid, nil
}

// FirstPrompts maps each of the jobs to its first prompt, which names the
// job in lists.
func (d *DB) FirstPrompts(ctx context.Context, jobIDs []string) (map[string]string, error) {
	out := make(map[string]string, len(jobIDs))
	if len(jobIDs) == 0 {
		return out, nil
	}
	args := make([]any, len(jobIDs))
	for i, id := range jobIDs {
		args[i] = id
	}
	// #nosec G202 -- only placeholders are joined into the SQL; the ids go as arguments
	rows, err := d.r.QueryContext(ctx, `/* DB.FirstPrompts */
		SELECT job_id, content FROM job_messages WHERE id IN (
			SELECT min(id) FROM job_messages WHERE role = 'user' AND job_id IN (?`+strings.Repeat(", ?", len(jobIDs)-1)+`) GROUP BY job_id)`, args...)
	if err != nil {
		return nil, fmt.Errorf("db: unable to fetch first prompts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, prompt string
		if err := rows.Scan(&id, &prompt); err != nil {
			return nil, fmt.Errorf("db: unable to fetch first prompts: %w", err)
		}
		out[id] = prompt
	}
	return out, rows.Err()
}

// ListJobs lists a project's jobs newest first, optionally of one status,
// and reports whether more exist past offset+limit.
func (d *DB) ListJobs(ctx context.Context, projectID string, status JobStatus, limit, offset int) ([]Job, bool, error) {
	out, err := d.queryJobs(ctx, "list jobs", `/* DB.ListJobs */
		SELECT `+jobColumns+` FROM jobs
		WHERE project_id = ? AND (? = '' OR status = ?)
		ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`, projectID, status, status, limit+1, offset)
	if err != nil {
		return nil, false, err
	}
	if len(out) > limit {
		return out[:limit], true, nil
	}
	return out, false, nil
}

// isActive is the SQL condition of an active job. It is spelled out in the
// query rather than bound, so SQLite sees that the query matches the
// partial indexes of active jobs (migrations 0002 and 0031).
const isActive = "status = '" + string(JobActive) + "'"

// ActiveJobs lists every active job, for the sweep.
func (d *DB) ActiveJobs(ctx context.Context) ([]Job, error) {
	return d.queryJobs(ctx, "list active jobs", `/* DB.ActiveJobs */
		SELECT `+jobColumns+` FROM jobs WHERE `+isActive+` ORDER BY updated_at`)
}

// ExpiredJobRuns lists active jobs whose run's lease ran out before t:
// their worker died or was cut off. The sweep asks every few seconds, so it
// reads an index of leased jobs only.
func (d *DB) ExpiredJobRuns(ctx context.Context, t time.Time) ([]Job, error) {
	return d.queryJobs(ctx, "list expired runs", `/* DB.ExpiredJobRuns */
		SELECT `+jobColumns+` FROM jobs WHERE `+isActive+` AND lease_owner <> '' AND lease_until < ? ORDER BY lease_until`, millis(t))
}

// UnclaimedJobs lists active jobs no run has claimed since before t.
func (d *DB) UnclaimedJobs(ctx context.Context, t time.Time) ([]Job, error) {
	return d.queryJobs(ctx, "list unclaimed jobs", `/* DB.UnclaimedJobs */
		SELECT `+jobColumns+` FROM jobs WHERE `+isActive+` AND lease_owner = '' AND updated_at < ? ORDER BY updated_at`, millis(t))
}

// queryJobs runs a query of jobColumns; what names it in errors.
func (d *DB) queryJobs(ctx context.Context, what, query string, args ...any) ([]Job, error) {
	return queryAll(ctx, d, what, scanJob, query, args...)
}

// jobTx loads a job of a project inside tx, for a transition.
func jobTx(ctx context.Context, tx *sql.Tx, projectID, id string) (Job, error) {
	j, err := scanJob(tx.QueryRowContext(ctx, `/* DB.jobTx */
		SELECT `+jobColumns+` FROM jobs WHERE id = ? AND (? = '' OR project_id = ?)`, id, projectID, projectID))
	if errors.Is(err, sql.ErrNoRows) {
		return Job{}, model.ErrJobNotFound
	}
	return j, err
}

// errJobChanged is a transition whose job no longer had the status it was
// decided on when it was written.
var errJobChanged = errors.New("the job's status changed while it was being updated")

// saveJobTx writes j as a transition of the model left it, over the job
// read in tx with status from. The status is compared and set: the write
// applies only while the job still has status from (errJobChanged if not).
// The write lock that tx holds from its start (BEGIN IMMEDIATE) keeps
// other writers out, so the guard fails only if something wrote around it.
func saveJobTx(ctx context.Context, tx *sql.Tx, from JobStatus, j Job) error {
	res, err := tx.ExecContext(ctx, `/* DB.saveJobTx */
		UPDATE jobs SET status = ?, turn = ?, recovery = ?, attempts = ?, lease_owner = ?, lease_until = ?,
			error_code = ?, error_message = ?, pr_link = ?, summary = ?, problems = ?,
			updated_at = ?, archived_at = ?, merged_at = ?, merge_commit = ?
		WHERE id = ? AND status = ?`,
		j.Status, j.Turn, j.Recovery, j.Attempts, j.LeaseOwner, toNullMillis(j.LeaseUntil),
		j.ErrorCode, j.ErrorMessage, j.PRLink, j.Summary, j.Problems,
		millis(j.UpdatedAt), toNullMillis(j.ArchivedAt), toNullMillis(j.MergedAt), j.MergeCommit,
		j.ID, from)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return errors.Join(errJobChanged, err)
	}
	return nil
}

// AddJobPrompt stores a follow-up. On a completed or failed job it starts a
// new turn (started reports true: the caller enqueues it); on an active job
// the prompt waits for the turn after the current one. An archived job
// gives model.ErrJobArchived.
func (d *DB) AddJobPrompt(ctx context.Context, projectID, id, prompt string, idem *IdempotencyKey) (j Job, started bool, err error) {
	err = d.tx(ctx, func(tx *sql.Tx) error {
		read, err := jobTx(ctx, tx, projectID, id)
		if err != nil {
			return err
		}
		t := now()
		if j, started, err = read.FollowUp(t); err != nil {
			return err
		}
		if idem != nil {
			if err := insertIdempotencyKey(ctx, tx, *idem, j.ID, t); err != nil {
				return err
			}
		}
		if !started {
			return insertPrompt(ctx, tx, j.ID, j.Turn+1, prompt, t)
		}
		if err := saveJobTx(ctx, tx, read.Status, j); err != nil {
			return err
		}
		if err := insertPrompt(ctx, tx, j.ID, j.Turn, prompt, t); err != nil {
			return err
		}
		j, err = countStatusChange(ctx, tx, j.ID)
		return err
	})
	if isUniqueViolation(err) {
		return Job{}, false, model.ErrConflict
	}
	if err != nil && !errors.Is(err, model.ErrNotFound) && !errors.Is(err, model.ErrJobArchived) {
		err = fmt.Errorf("db: unable to add a prompt to job %s: %w", id, err)
	}
	return j, started, err
}

// ArchiveJob archives a job in any state but archived (model.ErrJobArchived).
func (d *DB) ArchiveJob(ctx context.Context, projectID, id string) (Job, error) {
	var j Job
	err := d.tx(ctx, func(tx *sql.Tx) error {
		read, err := jobTx(ctx, tx, projectID, id)
		if err != nil {
			return err
		}
		if j, err = read.Archive(now()); err != nil {
			return err
		}
		if err := archiveTx(ctx, tx, read.Status, j); err != nil {
			return err
		}
		j, err = countStatusChange(ctx, tx, j.ID)
		return err
	})
	if err != nil && !errors.Is(err, model.ErrNotFound) && !errors.Is(err, model.ErrJobArchived) {
		err = fmt.Errorf("db: unable to archive job %s: %w", id, err)
	}
	return j, err
}

// archiveTx writes j, archived from status from: the follow-ups queued for
// later turns are dropped.
func archiveTx(ctx context.Context, tx *sql.Tx, from JobStatus, j Job) error {
	if err := saveJobTx(ctx, tx, from, j); err != nil {
		return err
	}
	return dropQueuedPrompts(ctx, tx, j)
}

// MergeJob records that the job's branch was merged into its ref — by
// Folio, or its pull request on GitHub — with the merge commit and the
// diff that was merged, and archives the job as ArchiveJob does, whatever
// its state. A job archived before keeps its archivedAt (its pull request
// was merged after it was put away); archived reports whether this call
// archived it. A job whose merge is recorded already gives model.ErrJobArchived.
func (d *DB) MergeJob(ctx context.Context, projectID, id, commit, diff string) (j Job, archived bool, err error) {
	err = d.tx(ctx, func(tx *sql.Tx) error {
		read, err := jobTx(ctx, tx, projectID, id)
		if err != nil {
			return err
		}
		if j, archived, err = read.RecordMerge(commit, now()); err != nil {
			return err
		}
		save := saveJobTx
		if archived {
			save = archiveTx
		}
		if err := save(ctx, tx, read.Status, j); err != nil {
			return err
		}
		if _, err = tx.ExecContext(ctx, `/* DB.MergeJob */
			UPDATE jobs SET merged_diff = ? WHERE id = ?`, diff, j.ID); err != nil {
			return err
		}
		if archived { // a status change: its webhook event carries the merge
			j, err = countStatusChange(ctx, tx, j.ID)
		}
		return err
	})
	if err != nil && !errors.Is(err, model.ErrNotFound) && !errors.Is(err, model.ErrJobArchived) {
		err = fmt.Errorf("db: unable to record the merge of job %s: %w", id, err)
	}
	return j, archived, err
}

// MergedDiff is the diff a merged job brought to its ref ("" if none).
func (d *DB) MergedDiff(ctx context.Context, id string) (string, error) {
	var diff string
	err := d.r.QueryRowContext(ctx, `/* DB.MergedDiff */ SELECT merged_diff FROM jobs WHERE id = ?`, id).Scan(&diff)
	if errors.Is(err, sql.ErrNoRows) {
		return "", model.ErrJobNotFound
	}
	if err != nil {
		return "", fmt.Errorf("db: unable to read the merged diff of job %s: %w", id, err)
	}
	return diff, nil
}

// CancelJob fails an active job with code, dropping its queued follow-ups.
// A job that is not active gives model.ErrJobNotActive (model.ErrJobArchived if archived).
func (d *DB) CancelJob(ctx context.Context, projectID, id, code, message string) (Job, error) {
	var j Job
	err := d.tx(ctx, func(tx *sql.Tx) error {
		read, err := jobTx(ctx, tx, projectID, id)
		if err != nil {
			return err
		}
		if j, err = read.Fail("", code, message, now()); err != nil {
			return err
		}
		j, err = failTx(ctx, tx, read.Status, j)
		return err
	})
	if err != nil && !errors.Is(err, model.ErrNotFound) && !errors.Is(err, model.ErrJobArchived) && !errors.Is(err, model.ErrJobNotActive) {
		err = fmt.Errorf("db: unable to cancel job %s: %w", id, err)
	}
	return j, err
}

// failTx writes j, failed from status from: the follow-ups queued for
// later turns are dropped, and the change is counted.
func failTx(ctx context.Context, tx *sql.Tx, from JobStatus, j Job) (Job, error) {
	if err := saveJobTx(ctx, tx, from, j); err != nil {
		return j, err
	}
	if err := dropQueuedPrompts(ctx, tx, j); err != nil {
		return j, err
	}
	return countStatusChange(ctx, tx, j.ID)
}

// dropQueuedPrompts marks the follow-ups waiting for a later turn as dropped.
func dropQueuedPrompts(ctx context.Context, tx *sql.Tx, j Job) error {
	_, err := tx.ExecContext(ctx, `/* DB.dropQueuedPrompts */
		UPDATE job_messages SET dropped = 1, kept = 0 WHERE job_id = ? AND turn > ? AND attempt = ''`, j.ID, j.Turn)
	return err
}

// ClaimJobRun gives one attempt (owner) the right to run a turn until
// leaseUntil. It succeeds only if the job is active on that turn and
// recovery and no live attempt holds it, so a job runs at most once at a
// time on any number of workers; ok is false otherwise.
func (d *DB) ClaimJobRun(ctx context.Context, id string, turn, recovery int, owner string, leaseUntil time.Time) (j Job, ok bool, err error) {
	err = d.tx(ctx, func(tx *sql.Tx) error {
		read, err := jobTx(ctx, tx, "", id)
		if errors.Is(err, model.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		claimed, err := read.Claim(turn, recovery, owner, leaseUntil, now())
		if err != nil {
			return nil // not this attempt's to run
		}
		if err := saveJobTx(ctx, tx, read.Status, claimed); err != nil {
			return err
		}
		ok = true
		j, err = jobTx(ctx, tx, "", id) // as stored: the lease to the millisecond
		return err
	})
	if err != nil {
		return Job{}, false, fmt.Errorf("db: unable to claim a run of job %s: %w", id, err)
	}
	return j, ok, nil
}

// runTransition applies to job id what change decides, for the attempt
// running it or the sweep; false when the job is gone or change refused
// (the run is not, or no longer, the caller's).
func (d *DB) runTransition(ctx context.Context, id string, change func(Job) (Job, error)) (ok bool, err error) {
	err = d.tx(ctx, func(tx *sql.Tx) error {
		read, err := jobTx(ctx, tx, "", id)
		if errors.Is(err, model.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		changed, err := change(read)
		if err != nil {
			return nil
		}
		if err := saveJobTx(ctx, tx, read.Status, changed); err != nil {
			return err
		}
		ok = true
		return nil
	})
	return ok && err == nil, err
}

// ExtendJobLease keeps owner's claim alive; false means the claim is gone
// (the job was cancelled, archived or given to another attempt).
func (d *DB) ExtendJobLease(ctx context.Context, id, owner string, until time.Time) (bool, error) {
	ok, err := d.runTransition(ctx, id, func(j Job) (Job, error) { return j.ExtendLease(owner, until) })
	if err != nil {
		return false, fmt.Errorf("db: unable to extend the lease of job %s: %w", id, err)
	}
	return ok, nil
}

// ReleaseJobRun gives up owner's claim after a transient failure so a retry
// can claim the turn; false means the claim was already gone.
func (d *DB) ReleaseJobRun(ctx context.Context, id, owner string) (bool, error) {
	ok, err := d.runTransition(ctx, id, func(j Job) (Job, error) { return j.Release(owner) })
	if err != nil {
		return false, fmt.Errorf("db: unable to release job %s: %w", id, err)
	}
	return ok, nil
}

// AddJobUsage adds a run's model calls and tokens to the job's totals, and
// its cost: a run whose cost is not known (nil) leaves the job's unknown
// for good (NULL plus anything is NULL).
func (d *DB) AddJobUsage(ctx context.Context, id string, u model.RunUsage) error {
	var cost sql.NullInt64
	if u.CostMicros != nil {
		cost = sql.NullInt64{Int64: *u.CostMicros, Valid: true}
	}
	if _, err := d.w.ExecContext(ctx, `/* DB.AddJobUsage */
		UPDATE jobs SET steps = steps + ?, tokens = tokens + ?, input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
			cached_tokens = cached_tokens + ?, cache_write_tokens = cache_write_tokens + ?, cost_micros = cost_micros + ?
		WHERE id = ?`, u.Steps, u.Tokens, u.Input, u.Output, u.Cached, u.CacheWrite, cost, id); err != nil {
		return fmt.Errorf("db: unable to record usage of job %s: %w", id, err)
	}
	return nil
}

// FinishJobRun ends owner's successful turn: its messages join the history,
// prLink is set if given (and never cleared), and the job either starts the
// next turn, when follow-ups are waiting (next is true: the caller enqueues
// it), or becomes completed. ok is false when owner no longer held the job.
func (d *DB) FinishJobRun(ctx context.Context, id, owner string, out TurnOutcome) (j Job, next, ok bool, err error) {
	err = d.tx(ctx, func(tx *sql.Tx) error {
		read, err := jobTx(ctx, tx, "", id)
		if err != nil {
			return err
		}
		j = read
		var waiting int
		if err := tx.QueryRowContext(ctx, `/* DB.FinishJobRun */
			SELECT count(*) FROM job_messages WHERE job_id = ? AND turn > ? AND attempt = '' AND dropped = 0`,
			id, read.Turn).Scan(&waiting); err != nil {
			return err
		}
		ended, more, err := read.EndTurn(owner, out, waiting > 0, now())
		if err != nil {
			return nil // not owner's run any more
		}
		if _, err := tx.ExecContext(ctx, `/* DB.FinishJobRun */
			UPDATE job_messages SET kept = 1 WHERE job_id = ? AND attempt = ?`, id, owner); err != nil {
			return err
		}
		if err := saveJobTx(ctx, tx, read.Status, ended); err != nil {
			return err
		}
		j, next, ok = ended, more, true
		if next {
			return nil // still active: no status change
		}
		j, err = countStatusChange(ctx, tx, j.ID)
		return err
	})
	if err != nil {
		return Job{}, false, false, fmt.Errorf("db: unable to finish a run of job %s: %w", id, err)
	}
	return j, next, ok, nil
}

// FailJobRun fails the job owner is running (owner "" fails it whoever
// runs it, for the sweep), dropping queued follow-ups; ok is false when the
// job was no longer active or no longer owner's.
func (d *DB) FailJobRun(ctx context.Context, id, owner, code, message string) (j Job, ok bool, err error) {
	err = d.tx(ctx, func(tx *sql.Tx) error {
		read, err := jobTx(ctx, tx, "", id)
		if err != nil {
			return err
		}
		j = read
		failed, err := read.Fail(owner, code, message, now())
		if err != nil {
			return nil // not active, or not owner's run any more
		}
		ok = true
		j, err = failTx(ctx, tx, read.Status, failed)
		return err
	})
	if err != nil {
		return Job{}, false, fmt.Errorf("db: unable to fail job %s: %w", id, err)
	}
	return j, ok, nil
}

// RecoverJobRun moves an active job whose run was lost (its worker died or
// its task vanished) to a new recovery of the same turn, freeing its lease.
// Only one caller wins for a given (turn, recovery); ok says whether it was this one.
func (d *DB) RecoverJobRun(ctx context.Context, id string, turn, recovery int) (bool, error) {
	ok, err := d.runTransition(ctx, id, func(j Job) (Job, error) { return j.Recover(turn, recovery, now()) })
	if err != nil {
		return false, fmt.Errorf("db: unable to recover job %s: %w", id, err)
	}
	return ok, nil
}

const jobMessageColumns = `id, job_id, turn, attempt, role, content, tool_calls, tool_call_id, tool_name, is_error, kept, dropped, created_at, usage`

// AddJobMessage stores a message an attempt produced.
func (d *DB) AddJobMessage(ctx context.Context, m JobMessage) error {
	_, err := d.w.ExecContext(ctx, `/* DB.AddJobMessage */
		INSERT INTO job_messages (job_id, turn, attempt, role, content, tool_calls, tool_call_id, tool_name, is_error, created_at, usage)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		m.JobID, m.Turn, m.Attempt, m.Role, m.Content, m.ToolCalls, m.ToolCallID, m.ToolName, m.IsError, millis(m.CreatedAt), m.Usage)
	if err != nil {
		return fmt.Errorf("db: unable to store a message of job %s: %w", m.JobID, err)
	}
	return nil
}

// JobMessages is a job's whole conversation in order: each turn's prompts,
// then what its attempts said. With keptOnly, only the history the agent
// continues from (no failed attempt, no dropped prompt, nothing past upTo turn).
func (d *DB) JobMessages(ctx context.Context, jobID string, keptOnly bool, upTo int) ([]JobMessage, error) {
	q := `/* DB.JobMessages */
		SELECT ` + jobMessageColumns + ` FROM job_messages WHERE job_id = ?`
	args := []any{jobID}
	if keptOnly {
		q += ` AND kept = 1 AND turn <= ?`
		args = append(args, upTo)
	}
	q += ` ORDER BY turn, attempt <> '', id`
	return queryAll(ctx, d, "list messages of job "+jobID, scanJobMessage, q, args...)
}

// JobMessagesAfter is what was recorded of a job's conversation after the
// message with id after, in the order it was recorded (ids only grow): what
// a job's event stream has not sent yet.
func (d *DB) JobMessagesAfter(ctx context.Context, jobID string, after int64) ([]JobMessage, error) {
	return queryAll(ctx, d, "list messages of job "+jobID, scanJobMessage, `/* DB.JobMessagesAfter */
		SELECT `+jobMessageColumns+` FROM job_messages WHERE job_id = ? AND id > ? ORDER BY id`, jobID, after)
}

func scanJobMessage(s scanner) (JobMessage, error) {
	var m JobMessage
	var created int64
	err := s.Scan(&m.ID, &m.JobID, &m.Turn, &m.Attempt, &m.Role, &m.Content, &m.ToolCalls, &m.ToolCallID,
		&m.ToolName, &m.IsError, &m.Kept, &m.Dropped, &created, &m.Usage)
	m.CreatedAt = fromMillis(created)
	return m, err
}
