package db

import (
	"context"
	"fmt"
	"time"
)

// WebhookDelivery is one attempt to deliver a webhook event to a project's URL.
type WebhookDelivery struct {
	ID         string
	ProjectID  string
	JobID      string
	EventID    string
	Attempt    int
	URL        string
	StatusCode int    // 0 when no response came
	Error      string // why the attempt failed, if it did
	Duration   time.Duration
	CreatedAt  time.Time
}

// AddWebhookDelivery logs a delivery attempt.
func (d *DB) AddWebhookDelivery(ctx context.Context, w WebhookDelivery) (WebhookDelivery, error) {
	w.ID = NewID()
	if w.CreatedAt.IsZero() {
		w.CreatedAt = now()
	}
	_, err := d.w.ExecContext(ctx, `/* DB.AddWebhookDelivery */
		INSERT INTO webhook_deliveries (id, project_id, job_id, event_id, attempt, url, status_code, error, duration_ms, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		w.ID, w.ProjectID, w.JobID, w.EventID, w.Attempt, w.URL, w.StatusCode, w.Error, w.Duration.Milliseconds(), millis(w.CreatedAt))
	if err != nil {
		return WebhookDelivery{}, fmt.Errorf("db: unable to log a webhook delivery: %w", err)
	}
	return w, nil
}

// WebhookDeliveries lists a project's latest delivery attempts, newest first.
func (d *DB) WebhookDeliveries(ctx context.Context, projectID string, limit int) ([]WebhookDelivery, error) {
	rows, err := d.r.QueryContext(ctx, `/* DB.WebhookDeliveries */
		SELECT id, project_id, job_id, event_id, attempt, url, status_code, error, duration_ms, created_at
		FROM webhook_deliveries WHERE project_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?`, projectID, limit)
	if err != nil {
		return nil, fmt.Errorf("db: unable to list webhook deliveries: %w", err)
	}
	defer rows.Close()
	out := []WebhookDelivery{}
	for rows.Next() {
		var w WebhookDelivery
		var ms, created int64
		if err := rows.Scan(&w.ID, &w.ProjectID, &w.JobID, &w.EventID, &w.Attempt, &w.URL, &w.StatusCode, &w.Error, &ms, &created); err != nil {
			return nil, fmt.Errorf("db: unable to list webhook deliveries: %w", err)
		}
		w.Duration, w.CreatedAt = time.Duration(ms)*time.Millisecond, fromMillis(created)
		out = append(out, w)
	}
	return out, rows.Err()
}
