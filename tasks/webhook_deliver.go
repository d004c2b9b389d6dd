package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/hibiken/asynq"
)

// TypeWebhookDeliver delivers a job's pending webhook events, oldest first.
const TypeWebhookDeliver = "webhook:deliver"

// WebhookDelivery asks for a job's pending webhook events to be delivered.
// The events themselves wait in the database, which decides their order,
// so any number of these tasks for one job may run: the one that holds the
// job's oldest event delivers, the others find nothing to do. Sequence and
// Attempts name the occasion (an event recorded, a retry falling due), so
// enqueuing the same occasion twice queues one task.
type WebhookDelivery struct {
	JobID    string `json:"jobId"`
	Sequence int    `json:"sequence"` // the event that asks
	Attempts int    `json:"attempts"` // its attempts so far
}

// TaskID names the occasion.
func (w WebhookDelivery) TaskID() string {
	return "webhook:" + w.JobID + ":" + strconv.Itoa(w.Sequence) + ":" + strconv.Itoa(w.Attempts)
}

// WebhookRetries with retryDelay's backoff spread over about a day the
// retries of a task whose handler could not reach the database; a failed
// delivery is not one of them (its event is retried through the database).
const WebhookRetries = 32

// WebhookTimeout bounds one task: the handler starts no delivery it could
// not finish in it, and leaves the rest to a task of its own.
const WebhookTimeout = 5 * time.Minute

// NewWebhookDeliverTask builds the task that delivers w's job's events at
// at (now if zero).
func NewWebhookDeliverTask(w WebhookDelivery, at time.Time) (*asynq.Task, error) {
	body, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("tasks: unable to encode %s: %w", TypeWebhookDeliver, err)
	}
	// Asynq keeps a scheduled task's time in whole seconds, rounded down,
	// so a task for 12:00:00.400 may run at 12:00:00, before its event is
	// due: it would then ask for itself again under its own id, which Asynq
	// refuses while it runs, and the event would wait for the sweep. Round
	// up instead: a task never runs before its event is due.
	if frac := at.Sub(at.Truncate(time.Second)); frac > 0 {
		at = at.Add(time.Second - frac)
	}
	return asynq.NewTask(TypeWebhookDeliver, body, asynq.Queue(QueueWebhooks), asynq.TaskID(w.TaskID()),
		asynq.ProcessAt(at), asynq.MaxRetry(WebhookRetries), asynq.Timeout(WebhookTimeout)), nil
}

// WebhookDeliverer delivers a job's pending webhook events in order; an
// error asks for a retry of the task.
type WebhookDeliverer interface {
	DeliverWebhooks(ctx context.Context, jobID string) error
}

func handleWebhookDeliver(d WebhookDeliverer) asynq.HandlerFunc {
	return func(ctx context.Context, t *asynq.Task) error {
		var w WebhookDelivery
		if err := json.Unmarshal(t.Payload(), &w); err != nil || w.JobID == "" {
			return fmt.Errorf("tasks: bad %s payload %q: %v: %w", TypeWebhookDeliver, t.Payload(), err, asynq.SkipRetry)
		}
		return d.DeliverWebhooks(ctx, w.JobID)
	}
}
