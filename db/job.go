package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

const jobColumns = `id, project_id, status, repository, ref, model, branch, pr_link, error_code, error_message,
	turn, recovery, attempts, lease_owner, lease_until, created_at, updated_at, archived_at, steps, tokens,
	summary, problems, merged_at, merge_commit, status_changes`

func scanJob(s scanner) (Job, error) {
	var j Job
	var created, updated int64
	var lease, archived, merged sql.NullInt64
	var summary sql.NullString
	err := s.Scan(&j.ID, &j.ProjectID, &j.Status, &j.Repository, &j.Ref, &j.Model, &j.Branch, &j.PRLink,
		&j.ErrorCode, &j.ErrorMessage, &j.Turn, &j.Recovery, &j.Attempts, &j.LeaseOwner, &lease,
		&created, &updated, &archived, &j.Steps, &j.Tokens, &summary, &j.Problems, &merged, &j.MergeCommit, &j.StatusChanges)
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
// same project already stored gives ErrConflict.
func (d *DB) CreateJob(ctx context.Context, j Job, prompt string, idem *IdempotencyKey) (Job, error) {
	t := now()
	j.ID, j.Status, j.Turn, j.CreatedAt, j.UpdatedAt = NewID(), JobActive, 1, t, t
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
		return Job{}, ErrConflict
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
		return Job{}, ErrNotFound
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
	err = d.r.QueryRowContext(rctx, `/* DB.JobViewByID */
		SELECT id, status, repository, ref, model, branch, pr_link, error_code, error_message,
			created_at, updated_at, archived_at, steps, tokens, summary, problems, merged_at
		FROM jobs WHERE id = ? AND project_id = ?`, id, projectID).
		Scan(&j.ID, &j.Status, &j.Repository, &j.Ref, &j.Model, &j.Branch, &j.PRLink, &j.ErrorCode, &j.ErrorMessage,
			&created, &updated, &archived, &j.Steps, &j.Tokens, &summary, &j.Problems, &merged)
	if errors.Is(err, sql.ErrNoRows) {
		return Job{}, ErrNotFound
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
		return "", ErrNotFound
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

// ActiveJobs lists every active job, for the sweep.
func (d *DB) ActiveJobs(ctx context.Context) ([]Job, error) {
	return d.queryJobs(ctx, "list active jobs", `/* DB.ActiveJobs */
		SELECT `+jobColumns+` FROM jobs WHERE status = 'active' ORDER BY updated_at`)
}

// ExpiredJobRuns lists active jobs whose run's lease ran out before t:
// their worker died or was cut off. The sweep asks every few seconds, so it
// reads an index of leased jobs only.
func (d *DB) ExpiredJobRuns(ctx context.Context, t time.Time) ([]Job, error) {
	return d.queryJobs(ctx, "list expired runs", `/* DB.ExpiredJobRuns */
		SELECT `+jobColumns+` FROM jobs WHERE status = 'active' AND lease_owner <> '' AND lease_until < ? ORDER BY lease_until`, millis(t))
}

// UnclaimedJobs lists active jobs no run has claimed since before t.
func (d *DB) UnclaimedJobs(ctx context.Context, t time.Time) ([]Job, error) {
	return d.queryJobs(ctx, "list unclaimed jobs", `/* DB.UnclaimedJobs */
		SELECT `+jobColumns+` FROM jobs WHERE status = 'active' AND lease_owner = '' AND updated_at < ? ORDER BY updated_at`, millis(t))
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
		return Job{}, ErrNotFound
	}
	return j, err
}

// AddJobPrompt stores a follow-up. On a completed or failed job it starts a
// new turn (started reports true: the caller enqueues it); on an active job
// the prompt waits for the turn after the current one. An archived job
// gives ErrJobArchived.
func (d *DB) AddJobPrompt(ctx context.Context, projectID, id, prompt string, idem *IdempotencyKey) (j Job, started bool, err error) {
	err = d.tx(ctx, func(tx *sql.Tx) error {
		if j, err = jobTx(ctx, tx, projectID, id); err != nil {
			return err
		}
		t := now()
		if j.Status == JobArchived {
			return ErrJobArchived
		}
		if idem != nil {
			if err := insertIdempotencyKey(ctx, tx, *idem, j.ID, t); err != nil {
				return err
			}
		}
		switch j.Status {
		case JobActive:
			return insertPrompt(ctx, tx, j.ID, j.Turn+1, prompt, t)
		}
		started = true
		j.Status, j.Turn, j.Recovery, j.Attempts, j.ErrorCode, j.ErrorMessage, j.UpdatedAt = JobActive, j.Turn+1, 0, 0, "", "", t
		if _, err := tx.ExecContext(ctx, `/* DB.AddJobPrompt */
			UPDATE jobs SET status = 'active', turn = ?, recovery = 0, attempts = 0, error_code = '', error_message = '',
				lease_owner = '', lease_until = NULL, updated_at = ?
			WHERE id = ?`, j.Turn, millis(t), j.ID); err != nil {
			return err
		}
		if err := insertPrompt(ctx, tx, j.ID, j.Turn, prompt, t); err != nil {
			return err
		}
		j, err = countStatusChange(ctx, tx, j.ID)
		return err
	})
	if isUniqueViolation(err) {
		return Job{}, false, ErrConflict
	}
	if err != nil && !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrJobArchived) {
		err = fmt.Errorf("db: unable to add a prompt to job %s: %w", id, err)
	}
	return j, started, err
}

// ArchiveJob archives a job in any state but archived (ErrJobArchived).
func (d *DB) ArchiveJob(ctx context.Context, projectID, id string) (Job, error) {
	var j Job
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var err error
		if j, err = jobTx(ctx, tx, projectID, id); err != nil {
			return err
		}
		if j.Status == JobArchived {
			return ErrJobArchived
		}
		if j, err = archiveTx(ctx, tx, j, now()); err != nil {
			return err
		}
		j, err = countStatusChange(ctx, tx, j.ID)
		return err
	})
	if err != nil && !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrJobArchived) {
		err = fmt.Errorf("db: unable to archive job %s: %w", id, err)
	}
	return j, err
}

// archiveTx archives j at t: a run under way loses its lease and the
// follow-ups queued for later turns are dropped.
func archiveTx(ctx context.Context, tx *sql.Tx, j Job, t time.Time) (Job, error) {
	j.Status, j.ArchivedAt, j.UpdatedAt, j.LeaseOwner, j.LeaseUntil = JobArchived, &t, t, "", nil
	if _, err := tx.ExecContext(ctx, `/* DB.archiveTx */
		UPDATE jobs SET status = 'archived', archived_at = ?, updated_at = ?, lease_owner = '', lease_until = NULL WHERE id = ?`,
		millis(t), millis(t), j.ID); err != nil {
		return j, err
	}
	return j, dropQueuedPrompts(ctx, tx, j)
}

// MergeJob records that the job's branch was merged into its ref — by
// Folio, or its pull request on GitHub — with the merge commit and the
// diff that was merged, and archives the job as ArchiveJob does, whatever
// its state. A job archived before keeps its archivedAt (its pull request
// was merged after it was put away); archived reports whether this call
// archived it. A job whose merge is recorded already gives ErrJobArchived.
func (d *DB) MergeJob(ctx context.Context, projectID, id, commit, diff string) (j Job, archived bool, err error) {
	err = d.tx(ctx, func(tx *sql.Tx) error {
		if j, err = jobTx(ctx, tx, projectID, id); err != nil {
			return err
		}
		if j.MergedAt != nil {
			return ErrJobArchived
		}
		t := now()
		if j.Status != JobArchived {
			if j, err = archiveTx(ctx, tx, j, t); err != nil {
				return err
			}
			archived = true
		}
		j.UpdatedAt, j.MergedAt, j.MergeCommit = t, &t, commit
		if _, err = tx.ExecContext(ctx, `/* DB.MergeJob */
			UPDATE jobs SET updated_at = ?, merged_at = ?, merge_commit = ?, merged_diff = ? WHERE id = ?`,
			millis(t), millis(t), commit, diff, j.ID); err != nil {
			return err
		}
		if archived { // a status change: its webhook event carries the merge
			j, err = countStatusChange(ctx, tx, j.ID)
		}
		return err
	})
	if err != nil && !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrJobArchived) {
		err = fmt.Errorf("db: unable to record the merge of job %s: %w", id, err)
	}
	return j, archived, err
}

// MergedDiff is the diff a merged job brought to its ref ("" if none).
func (d *DB) MergedDiff(ctx context.Context, id string) (string, error) {
	var diff string
	err := d.r.QueryRowContext(ctx, `/* DB.MergedDiff */ SELECT merged_diff FROM jobs WHERE id = ?`, id).Scan(&diff)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("db: unable to read the merged diff of job %s: %w", id, err)
	}
	return diff, nil
}

// CancelJob fails an active job with code, dropping its queued follow-ups.
// A job that is not active gives ErrJobNotActive (ErrJobArchived if archived).
func (d *DB) CancelJob(ctx context.Context, projectID, id, code, message string) (Job, error) {
	var j Job
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var err error
		if j, err = jobTx(ctx, tx, projectID, id); err != nil {
			return err
		}
		switch j.Status {
		case JobArchived:
			return ErrJobArchived
		case JobActive:
		default:
			return ErrJobNotActive
		}
		j, err = failTx(ctx, tx, j, code, message)
		return err
	})
	if err != nil && !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrJobArchived) && !errors.Is(err, ErrJobNotActive) {
		err = fmt.Errorf("db: unable to cancel job %s: %w", id, err)
	}
	return j, err
}

func failTx(ctx context.Context, tx *sql.Tx, j Job, code, message string) (Job, error) {
	t := now()
	j.Status, j.ErrorCode, j.ErrorMessage, j.UpdatedAt, j.LeaseOwner, j.LeaseUntil = JobFailed, code, message, t, "", nil
	if _, err := tx.ExecContext(ctx, `/* DB.failTx */
		UPDATE jobs SET status = 'failed', error_code = ?, error_message = ?, updated_at = ?, lease_owner = '', lease_until = NULL
		WHERE id = ?`, code, message, millis(t), j.ID); err != nil {
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
		t := now()
		res, err := tx.ExecContext(ctx, `/* DB.ClaimJobRun */
			UPDATE jobs SET lease_owner = ?, lease_until = ?, attempts = attempts + 1, updated_at = ?
			WHERE id = ? AND status = 'active' AND turn = ? AND recovery = ?
				AND (lease_owner = '' OR lease_until IS NULL OR lease_until < ?)`,
			owner, millis(leaseUntil), millis(t), id, turn, recovery, millis(t))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		ok = true
		j, err = jobTx(ctx, tx, "", id)
		return err
	})
	if err != nil {
		return Job{}, false, fmt.Errorf("db: unable to claim a run of job %s: %w", id, err)
	}
	return j, ok, nil
}

// ExtendJobLease keeps owner's claim alive; false means the claim is gone
// (the job was cancelled, archived or given to another attempt).
func (d *DB) ExtendJobLease(ctx context.Context, id, owner string, until time.Time) (bool, error) {
	res, err := d.w.ExecContext(ctx, `/* DB.ExtendJobLease */
		UPDATE jobs SET lease_until = ? WHERE id = ? AND status = 'active' AND lease_owner = ?`, millis(until), id, owner)
	if err != nil {
		return false, fmt.Errorf("db: unable to extend the lease of job %s: %w", id, err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// ReleaseJobRun gives up owner's claim after a transient failure so a retry
// can claim the turn; false means the claim was already gone.
func (d *DB) ReleaseJobRun(ctx context.Context, id, owner string) (bool, error) {
	res, err := d.w.ExecContext(ctx, `/* DB.ReleaseJobRun */
		UPDATE jobs SET lease_owner = '', lease_until = NULL WHERE id = ? AND status = 'active' AND lease_owner = ?`, id, owner)
	if err != nil {
		return false, fmt.Errorf("db: unable to release job %s: %w", id, err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// AddJobUsage adds a run's model calls and tokens to the job's totals.
func (d *DB) AddJobUsage(ctx context.Context, id string, steps int, tokens int64) error {
	if _, err := d.w.ExecContext(ctx, `/* DB.AddJobUsage */
		UPDATE jobs SET steps = steps + ?, tokens = tokens + ? WHERE id = ?`, steps, tokens, id); err != nil {
		return fmt.Errorf("db: unable to record usage of job %s: %w", id, err)
	}
	return nil
}

// FinishJobRun ends owner's successful turn: its messages join the history,
// prLink is set if given (and never cleared), and the job either starts the
// next turn, when follow-ups are waiting (next is true: the caller enqueues
// it), or becomes completed. ok is false when owner no longer held the job.
func (d *DB) FinishJobRun(ctx context.Context, id, owner string, out TurnOutcome) (j Job, next, ok bool, err error) {
	prLink := out.PRLink
	err = d.tx(ctx, func(tx *sql.Tx) error {
		if j, err = jobTx(ctx, tx, "", id); err != nil {
			return err
		}
		if j.Status != JobActive || j.LeaseOwner != owner {
			return nil
		}
		ok = true
		if _, err := tx.ExecContext(ctx, `/* DB.FinishJobRun */
			UPDATE job_messages SET kept = 1 WHERE job_id = ? AND attempt = ?`, id, owner); err != nil {
			return err
		}
		var waiting int
		if err := tx.QueryRowContext(ctx, `/* DB.FinishJobRun */
			SELECT count(*) FROM job_messages WHERE job_id = ? AND turn > ? AND attempt = '' AND dropped = 0`,
			id, j.Turn).Scan(&waiting); err != nil {
			return err
		}
		t := now()
		if prLink != "" {
			j.PRLink = prLink
		}
		j.UpdatedAt, j.LeaseOwner, j.LeaseUntil = t, "", nil
		j.Summary, j.Problems = &out.Summary, out.Problems
		if j.Problems == "" {
			j.Problems = "[]"
		}
		if waiting > 0 {
			next = true
			j.Turn, j.Recovery, j.Attempts = j.Turn+1, 0, 0
		} else {
			j.Status = JobCompleted
		}
		if _, err := tx.ExecContext(ctx, `/* DB.FinishJobRun */
			UPDATE jobs SET status = ?, pr_link = ?, turn = ?, recovery = ?, attempts = ?, lease_owner = '', lease_until = NULL, updated_at = ?,
				summary = ?, problems = ?
			WHERE id = ?`, j.Status, j.PRLink, j.Turn, j.Recovery, j.Attempts, millis(t), *j.Summary, j.Problems, id); err != nil {
			return err
		}
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
		if j, err = jobTx(ctx, tx, "", id); err != nil {
			return err
		}
		if j.Status != JobActive || (owner != "" && j.LeaseOwner != owner) {
			return nil
		}
		ok = true
		j, err = failTx(ctx, tx, j, code, message)
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
	res, err := d.w.ExecContext(ctx, `/* DB.RecoverJobRun */
		UPDATE jobs SET recovery = recovery + 1, lease_owner = '', lease_until = NULL, updated_at = ?
		WHERE id = ? AND status = 'active' AND turn = ? AND recovery = ?`, millis(now()), id, turn, recovery)
	if err != nil {
		return false, fmt.Errorf("db: unable to recover job %s: %w", id, err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

const jobMessageColumns = `id, job_id, turn, attempt, role, content, tool_calls, tool_call_id, tool_name, is_error, kept, dropped, created_at`

// AddJobMessage stores a message an attempt produced.
func (d *DB) AddJobMessage(ctx context.Context, m JobMessage) error {
	_, err := d.w.ExecContext(ctx, `/* DB.AddJobMessage */
		INSERT INTO job_messages (job_id, turn, attempt, role, content, tool_calls, tool_call_id, tool_name, is_error, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		m.JobID, m.Turn, m.Attempt, m.Role, m.Content, m.ToolCalls, m.ToolCallID, m.ToolName, m.IsError, millis(m.CreatedAt))
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
		&m.ToolName, &m.IsError, &m.Kept, &m.Dropped, &created)
	m.CreatedAt = fromMillis(created)
	return m, err
}
