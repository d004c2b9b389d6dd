package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/folio-docs/folio/model"
)

// countStatusChange counts a status change of job id made in tx and, if
// its project has a webhook, records the change as a webhook event in the
// same transaction: a change is never without its event, and two changes
// never share a sequence, whichever process makes them. It returns the job
// as the change left it, which the event keeps as a model.JobRecord.
func countStatusChange(ctx context.Context, tx *sql.Tx, id string) (Job, error) {
	if _, err := tx.ExecContext(ctx, `/* DB.countStatusChange */
		UPDATE jobs SET status_changes = status_changes + 1 WHERE id = ?`, id); err != nil {
		return Job{}, err
	}
	j, err := jobTx(ctx, tx, "", id)
	if err != nil {
		return Job{}, err
	}
	snapshot, err := json.Marshal(j.Record())
	if err != nil {
		return Job{}, err
	}
	t := millis(now())
	_, err = tx.ExecContext(ctx, `/* DB.countStatusChange */
		INSERT INTO webhook_events (id, project_id, job_id, sequence, job, next_attempt_at, created_at)
		SELECT ?, id, ?, ?, ?, ?, ? FROM projects WHERE id = ? AND webhook_url <> ''`,
		model.NewID(), j.ID, j.StatusChanges, string(snapshot), t, t, j.ProjectID)
	return j, err
}

const webhookEventColumns = `id, project_id, job_id, sequence, job, state, attempts, next_attempt_at, lease_owner, created_at`

func scanWebhookEvent(s scanner) (WebhookEvent, error) {
	var e WebhookEvent
	var snapshot string
	var next, created int64
	var job model.JobRecord
	if err := s.Scan(&e.ID, &e.ProjectID, &e.JobID, &e.Sequence, &snapshot, &e.State, &e.Attempts, &next, &e.LeaseOwner, &created); err != nil {
		return e, err
	}
	e.NextAttemptAt, e.CreatedAt = fromMillis(next), fromMillis(created)
	if err := json.Unmarshal([]byte(snapshot), &job); err != nil {
		return e, fmt.Errorf("the job of event %s does not decode: %w", e.ID, err)
	}
	e.Job = job.Job()
	return e, nil
}

// ClaimWebhookEvent gives owner, until leaseUntil, the job's oldest pending
// webhook event — the only one of the job that may be tried — if it is due
// and no live lease holds it. It returns that event (zero if none is
// pending) and whether owner got it. Claiming counts an attempt.
func (d *DB) ClaimWebhookEvent(ctx context.Context, jobID, owner string, leaseUntil time.Time) (e WebhookEvent, ok bool, err error) {
	err = d.tx(ctx, func(tx *sql.Tx) error {
		e, err = scanWebhookEvent(tx.QueryRowContext(ctx, `/* DB.ClaimWebhookEvent */
			SELECT `+webhookEventColumns+` FROM webhook_events
			WHERE job_id = ? AND state = 'pending' ORDER BY sequence LIMIT 1`, jobID))
		if errors.Is(err, sql.ErrNoRows) {
			e = WebhookEvent{}
			return nil
		}
		if err != nil || e.NextAttemptAt.After(now()) {
			return err
		}
		// The write lock of this transaction keeps any other claim out
		// until it commits.
		if _, err := tx.ExecContext(ctx, `/* DB.ClaimWebhookEvent */
			UPDATE webhook_events SET attempts = attempts + 1, lease_owner = ?, next_attempt_at = ? WHERE id = ?`,
			owner, millis(leaseUntil), e.ID); err != nil {
			return err
		}
		ok = true
		e.Attempts, e.LeaseOwner, e.NextAttemptAt = e.Attempts+1, owner, fromMillis(millis(leaseUntil))
		return nil
	})
	if err != nil {
		return WebhookEvent{}, false, fmt.Errorf("db: unable to claim a webhook event of job %s: %w", jobID, err)
	}
	return e, ok, nil
}

// FinishWebhookEvent records how owner's attempt at e ended: the attempt
// in the delivery log (if logged is given), and e's new state — delivered,
// abandoned, or pending again from retryAt. The log is written in any
// case; the state only while owner still holds e (false otherwise: its
// lease ran out and another delivery took it).
func (d *DB) FinishWebhookEvent(ctx context.Context, e WebhookEvent, owner, state string, retryAt time.Time, logged *WebhookDelivery) (ok bool, err error) {
	err = d.tx(ctx, func(tx *sql.Tx) error {
		t := now()
		if logged != nil {
			if err := insertWebhookDelivery(ctx, tx, *logged, t); err != nil {
				return err
			}
		}
		finished := sql.NullInt64{Int64: millis(t), Valid: state != WebhookPending}
		res, err := tx.ExecContext(ctx, `/* DB.FinishWebhookEvent */
			UPDATE webhook_events SET state = ?, lease_owner = '', next_attempt_at = ?, finished_at = ?
			WHERE id = ? AND state = 'pending' AND lease_owner = ?`,
			state, millis(retryAt), finished, e.ID, owner)
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		ok = n > 0
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("db: unable to record an attempt at webhook event %s: %w", e.ID, err)
	}
	return ok, nil
}

// StalledWebhookEvents lists, most overdue first, the oldest pending event
// of each job that was due before t: what nothing is delivering any more
// (a delivery that died, a task the queue lost), for the sweep.
func (d *DB) StalledWebhookEvents(ctx context.Context, t time.Time, limit int) ([]WebhookEvent, error) {
	return queryAll(ctx, d, "list stalled webhook events", scanWebhookEvent, `/* DB.StalledWebhookEvents */
		SELECT `+webhookEventColumns+` FROM webhook_events e
		WHERE state = 'pending' AND next_attempt_at < ?
			AND sequence = (SELECT min(sequence) FROM webhook_events WHERE job_id = e.job_id AND state = 'pending')
		ORDER BY next_attempt_at LIMIT ?`, millis(t), limit)
}

// WebhookEvents lists a job's webhook events in order of sequence.
func (d *DB) WebhookEvents(ctx context.Context, jobID string) ([]WebhookEvent, error) {
	return queryAll(ctx, d, "list webhook events of job "+jobID, scanWebhookEvent, `/* DB.WebhookEvents */
		SELECT `+webhookEventColumns+` FROM webhook_events WHERE job_id = ? ORDER BY sequence`, jobID)
}
