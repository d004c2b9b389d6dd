package jobs

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/metrics"
	"github.com/folio-docs/folio/tasks"
)

// EventStatusChanged is the type of the event sent on every status change.
const EventStatusChanged = "job.status_changed"

// webhookRetryFor is how long a delivery is retried.
const webhookRetryFor = 24 * time.Hour

// SignatureHeader carries "t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">".
const SignatureHeader = "Folio-Signature"

type statusChanged struct {
	Type string `json:"type"`
	Job  Job    `json:"job"`
}

// notify queues a job.status_changed event if the project has a webhook.
// The event is fixed now; a failure to queue it is logged, never fatal to
// the change that caused it.
func (s *Service) notify(ctx context.Context, j db.Job) {
	ctx = context.WithoutCancel(ctx)
	p, err := s.db.ProjectByID(ctx, j.ProjectID)
	if err != nil || p.WebhookURL == "" {
		return
	}
	body, err := json.Marshal(statusChanged{Type: EventStatusChanged, Job: View(j)})
	if err != nil {
		s.log.Error("unable to encode a webhook event", "job_id", j.ID, "err", err)
		return
	}
	e := tasks.WebhookEvent{ID: db.NewID(), ProjectID: j.ProjectID, JobID: j.ID, Body: body, At: time.Now().UTC()}
	if err := s.queue.EnqueueWebhook(ctx, e); err != nil {
		s.log.Warn("unable to queue a webhook event", "job_id", j.ID, "status", j.Status, "err", err)
	}
}

// Sign returns the Folio-Signature of body sent at t with secret.
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

// DeliverWebhook makes one signed delivery attempt of an event to the
// project's current webhook URL and logs it. A failure asks for a retry
// until the event is a day old.
func (s *Service) DeliverWebhook(ctx context.Context, e tasks.WebhookEvent, attempt int) error {
	p, err := s.db.ProjectByID(ctx, e.ProjectID)
	if err != nil {
		return err
	}
	if p.WebhookURL == "" {
		return nil // removed since the event happened
	}
	start := time.Now()
	d := db.WebhookDelivery{ProjectID: p.ID, JobID: e.JobID, EventID: e.ID, Attempt: attempt, URL: p.WebhookURL}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.WebhookURL, bytes.NewReader(e.Body))
	if err == nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("User-Agent", "Folio-Webhooks/1")
		req.Header.Set("Folio-Event-Id", e.ID)
		req.Header.Set(SignatureHeader, Sign(p.WebhookSecret, start, e.Body))
		var resp *http.Response
		if resp, err = s.cfg.HTTPClient.Do(req); err == nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
			d.StatusCode = resp.StatusCode
			if resp.StatusCode < 200 || resp.StatusCode > 299 {
				err = fmt.Errorf("the receiver answered %d", resp.StatusCode)
			}
		}
	}
	d.Duration = time.Since(start)
	if err != nil {
		d.Error = err.Error()
	}
	if _, lerr := s.db.AddWebhookDelivery(context.WithoutCancel(ctx), d); lerr != nil {
		s.log.Error("unable to log a webhook delivery", "err", lerr)
	}
	if err == nil {
		metrics.WebhookDelivery("delivered")
		return nil
	}
	if time.Since(e.At) > webhookRetryFor {
		metrics.WebhookDelivery("abandoned")
		s.log.Warn("giving up a webhook event after a day of retries", "event_id", e.ID, "job_id", e.JobID)
		return nil
	}
	metrics.WebhookDelivery("failed") // retried later
	return fmt.Errorf("jobs: webhook delivery %s to project %s failed: %w", e.ID, p.ID, err)
}

// WebhookDeliveries lists a project's latest delivery attempts.
func (s *Service) WebhookDeliveries(ctx context.Context, projectID string, limit int) ([]db.WebhookDelivery, error) {
	return s.db.WebhookDeliveries(ctx, projectID, limit)
}
