package jobs

// Webhooks (CONTRACT §2), in order, per job.
//
// Every status change of a job is recorded, in the transaction that makes
// it, as an event numbered by the job's count of status changes (see
// db.countStatusChange): the event outlives any crash after the change,
// its body is fixed by the job as the change left it, and its sequence is
// exact whichever process made the change.
//
// A webhook:deliver task then delivers the job's pending events, oldest
// first. Only a job's oldest pending event may be tried, and only by the
// delivery holding its lease in the database, so event n+1 is never sent
// before event n was answered with a 2xx or given up after a day, and two
// workers never send one job's events at once. The lease, not Asynq, gives
// this guarantee: extra tasks for a job find nothing to do.
//
// Delivery is at least once: a delivery that dies after the receiver
// answered but before that was recorded leaves the event to be sent again
// once its lease runs out. Receivers deduplicate by id and order by
// sequence.
//
// Deliveries run where the database is — serve, and a `folio worker`
// beside it on FOLIO_DB — and never on a remote worker (FOLIO_SERVER_URL),
// which does not take the webhooks queue: the lease and the events live in
// the database, and a project's webhook secret never leaves serve
// (ForWorker). A serve with FOLIO_WORKER=false still delivers them.

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

	"github.com/folio-docs/folio/metrics"
	"github.com/folio-docs/folio/model"
	"github.com/folio-docs/folio/tasks"
)

// EventStatusChanged is the type of the event sent on every status change.
const EventStatusChanged = "job.status_changed"

// SignatureHeader carries "t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">".
const SignatureHeader = "Folio-Signature"

// webhookLease is how long a delivery holds the event it tries: well over
// the webhook client's timeout and the writes around it, so a live
// delivery keeps it; a dead one's event is tried again once it runs out.
const webhookLease = time.Minute

// webhookAttemptBudget is the least time a task must have left to try
// another event.
const webhookAttemptBudget = 30 * time.Second

// statusChanged is the body of a webhook event.
type statusChanged struct {
	ID       string `json:"id"`       // the same on every attempt
	Type     string `json:"type"`     // EventStatusChanged
	Sequence int    `json:"sequence"` // the job's status changes so far: 1, 2, 3, ...
	Job      Job    `json:"job"`      // as the change left it
}

// notify asks for the delivery of j's latest status change, whose event
// was recorded with the change. If the queue is unavailable, the sweep
// asks once RecoveryGrace has passed.
func (s *Service) notify(ctx context.Context, j model.Job) {
	ctx = context.WithoutCancel(ctx)
	p, err := s.db.ProjectByID(ctx, j.ProjectID)
	if err != nil || p.WebhookURL == "" {
		return
	}
	if err := s.queue.EnqueueWebhook(ctx, tasks.WebhookDelivery{JobID: j.ID, Sequence: j.StatusChanges}, time.Time{}); err != nil {
		s.log.Warn("unable to queue a webhook delivery; the sweep will", "job_id", j.ID, "sequence", j.StatusChanges, "err", err)
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

// DeliverWebhooks delivers the job's pending webhook events one by one,
// oldest first, until none is left, the oldest must wait for its retry, or
// another delivery holds it. An error (the database failed) asks for a
// retry of the task.
func (s *Service) DeliverWebhooks(ctx context.Context, jobID string) error {
	owner := model.NewID()
	for {
		e, ok, err := s.db.ClaimWebhookEvent(ctx, jobID, owner, time.Now().Add(webhookLease))
		switch {
		case err != nil:
			return err
		case e.ID == "":
			return nil
		case !ok && e.LeaseOwner != "":
			// Its holder goes on to the next event; if it died, the sweep
			// asks again once its lease has run out.
			return nil
		case !ok:
			return s.scheduleWebhook(ctx, e) // it, and all after it, wait for its retry
		}
		done, err := s.deliverWebhook(ctx, e, owner)
		if err != nil || !done {
			return err
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < webhookAttemptBudget {
			return s.queue.EnqueueWebhook(ctx, tasks.WebhookDelivery{JobID: jobID, Sequence: e.Sequence + 1}, time.Time{})
		}
	}
}

// scheduleWebhook asks for the delivery of e's job when e is due.
func (s *Service) scheduleWebhook(ctx context.Context, e model.WebhookEvent) error {
	return s.queue.EnqueueWebhook(ctx, tasks.WebhookDelivery{JobID: e.JobID, Sequence: e.Sequence, Attempts: e.Attempts}, e.NextAttemptAt)
}

// deliverWebhook makes the attempt at e that owner claimed, to the
// project's current URL, and records it. done says the event is finished
// (delivered, or given up), so the job's next may go.
func (s *Service) deliverWebhook(ctx context.Context, e model.WebhookEvent, owner string) (done bool, err error) {
	p, err := s.db.ProjectByID(ctx, e.ProjectID)
	if err != nil {
		return false, err
	}
	finish := context.WithoutCancel(ctx) // what was tried is recorded even on shutdown
	if p.WebhookURL == "" {
		// Removed since the change: nothing to deliver to.
		_, err := s.db.FinishWebhookEvent(finish, e, owner, model.WebhookAbandoned, time.Now(), nil)
		return err == nil, err
	}
	start := time.Now()
	attempt := model.WebhookDelivery{ProjectID: p.ID, JobID: e.JobID, EventID: e.ID, Sequence: e.Sequence, Attempt: e.Attempts, URL: p.WebhookURL}
	attempt.StatusCode, err = s.postWebhook(ctx, p, e, start)
	attempt.Duration = time.Since(start)
	state, retryAt, outcome := model.WebhookDelivered, time.Now(), metrics.WebhookDelivered
	if err != nil {
		attempt.Error = err.Error()
		state, outcome = model.WebhookPending, metrics.WebhookFailed
		retryAt = retryAt.Add(tasks.Backoff(e.Attempts-1, s.cfg.WebhookRetryBase, s.cfg.WebhookRetryMax))
		if retryAt.After(e.CreatedAt.Add(s.cfg.WebhookRetryFor)) {
			state, outcome = model.WebhookAbandoned, metrics.WebhookAbandoned
			s.log.Warn("giving up a webhook event after a day of retries", "event_id", e.ID, "job_id", e.JobID, "sequence", e.Sequence)
		}
	}
	metrics.WebhookDelivery(outcome)
	held, ferr := s.db.FinishWebhookEvent(finish, e, owner, state, retryAt, &attempt)
	switch {
	case ferr != nil:
		return false, ferr
	case !held:
		s.log.Warn("a webhook delivery outlived its lease; another has the event", "event_id", e.ID, "job_id", e.JobID)
		return false, nil
	case state == model.WebhookPending:
		e.NextAttemptAt = retryAt
		if err := s.scheduleWebhook(finish, e); err != nil {
			s.log.Warn("unable to schedule a webhook retry; the sweep will", "event_id", e.ID, "err", err)
		}
		return false, nil
	}
	return true, nil
}

// postWebhook sends e, signed with the project's secret at t, and returns
// the receiver's status code; anything but a 2xx is an error.
func (s *Service) postWebhook(ctx context.Context, p model.Project, e model.WebhookEvent, t time.Time) (int, error) {
	body, err := json.Marshal(statusChanged{ID: e.ID, Type: EventStatusChanged, Sequence: e.Sequence, Job: s.View(e.Job)})
	if err != nil {
		return 0, fmt.Errorf("unable to encode the event: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.WebhookURL, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Folio-Webhooks/1")
	req.Header.Set("Folio-Event-Id", e.ID)
	req.Header.Set(SignatureHeader, Sign(p.WebhookSecret, t, body))
	resp, err := s.cfg.HTTPClient.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // read only so the connection can be reused; the status is the answer
	_ = resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, fmt.Errorf("the receiver answered %d", resp.StatusCode)
	}
	return resp.StatusCode, nil
}

// WebhookDeliveries lists a project's latest delivery attempts.
func (s *Service) WebhookDeliveries(ctx context.Context, projectID string, limit int) ([]model.WebhookDelivery, error) {
	return s.db.WebhookDeliveries(ctx, projectID, limit)
}
