package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
)

// TypeWebhookDeliver delivers one webhook event to a project's URL.
const TypeWebhookDeliver = "webhook:deliver"

// WebhookEvent is an event to deliver: its body is fixed when it happens,
// the URL and secret are the project's at delivery time.
type WebhookEvent struct {
	ID        string          `json:"id"`
	ProjectID string          `json:"projectId"`
	JobID     string          `json:"jobId"`
	Body      json.RawMessage `json:"body"`
	At        time.Time       `json:"at"`
}

// WebhookRetries with retryDelay's backoff spread the tries over about a day.
const WebhookRetries = 32

// NewWebhookDeliverTask builds the task that delivers e, with retries.
func NewWebhookDeliverTask(e WebhookEvent) (*asynq.Task, error) {
	body, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("tasks: unable to encode %s: %w", TypeWebhookDeliver, err)
	}
	return asynq.NewTask(TypeWebhookDeliver, body, asynq.Queue(QueueWebhooks), asynq.TaskID("webhook:"+e.ID),
		asynq.MaxRetry(WebhookRetries), asynq.Timeout(30*time.Second)), nil
}

// WebhookDeliverer makes one delivery attempt (attempt counts from 1); an
// error asks for a retry.
type WebhookDeliverer interface {
	DeliverWebhook(ctx context.Context, e WebhookEvent, attempt int) error
}

func handleWebhookDeliver(d WebhookDeliverer) asynq.HandlerFunc {
	return func(ctx context.Context, t *asynq.Task) error {
		var e WebhookEvent
		if err := json.Unmarshal(t.Payload(), &e); err != nil {
			return fmt.Errorf("tasks: bad %s payload: %v: %w", TypeWebhookDeliver, err, asynq.SkipRetry)
		}
		n, _ := asynq.GetRetryCount(ctx)
		return d.DeliverWebhook(ctx, e, n+1)
	}
}
