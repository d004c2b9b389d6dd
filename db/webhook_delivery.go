package db

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/folio-docs/folio/model"
)

// insertWebhookDelivery logs a delivery attempt made at t, in tx.
func insertWebhookDelivery(ctx context.Context, tx *sql.Tx, w WebhookDelivery, t time.Time) error {
	_, err := tx.ExecContext(ctx, `/* DB.insertWebhookDelivery */
		INSERT INTO webhook_deliveries (id, project_id, job_id, event_id, sequence, attempt, url, status_code, error, duration_ms, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		model.NewID(), w.ProjectID, w.JobID, w.EventID, w.Sequence, w.Attempt, w.URL, w.StatusCode, w.Error, w.Duration.Milliseconds(), millis(t))
	return err
}

// WebhookDeliveries lists a project's latest delivery attempts, newest first.
func (d *DB) WebhookDeliveries(ctx context.Context, projectID string, limit int) ([]WebhookDelivery, error) {
	rows, err := d.r.QueryContext(ctx, `/* DB.WebhookDeliveries */
		SELECT id, project_id, job_id, event_id, sequence, attempt, url, status_code, error, duration_ms, created_at
		FROM webhook_deliveries WHERE project_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?`, projectID, limit)
	if err != nil {
		return nil, fmt.Errorf("db: unable to list webhook deliveries: %w", err)
	}
	defer rows.Close()
	out := []WebhookDelivery{}
	for rows.Next() {
		var w WebhookDelivery
		var ms, created int64
		if err := rows.Scan(&w.ID, &w.ProjectID, &w.JobID, &w.EventID, &w.Sequence, &w.Attempt, &w.URL, &w.StatusCode, &w.Error, &ms, &created); err != nil {
			return nil, fmt.Errorf("db: unable to list webhook deliveries: %w", err)
		}
		w.Duration, w.CreatedAt = time.Duration(ms)*time.Millisecond, fromMillis(created)
		out = append(out, w)
	}
	return out, rows.Err()
}
