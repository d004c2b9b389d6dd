package model

import (
	"time"
)

// WebhookDelivery is one attempt to deliver a webhook event to a project's URL.
type WebhookDelivery struct {
	ID         string
	ProjectID  string
	JobID      string
	EventID    string
	Sequence   int // the event's place among its job's status changes
	Attempt    int // of that event, from 1
	URL        string
	StatusCode int    // 0 when no response came
	Error      string // why the attempt failed, if it did
	Duration   time.Duration
	CreatedAt  time.Time
}
