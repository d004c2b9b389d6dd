package model

import (
	"time"
)

// States of a webhook event.
const (
	WebhookPending   = "pending"   // to be tried (again)
	WebhookDelivered = "delivered" // answered with a 2xx
	WebhookAbandoned = "abandoned" // given up: a day of failures, or no webhook any more
)

// WebhookEvent is one status change of a job, to be sent to its project's
// webhook. Sequence numbers the job's status changes (1, 2, 3, ...); Job is
// the job as the change left it, so every attempt sends the same body
// (stored as its JobRecord).
type WebhookEvent struct {
	ID        string
	ProjectID string
	JobID     string
	Sequence  int
	Job       Job
	State     string
	Attempts  int
	// NextAttemptAt is when the event may be tried (again); while a
	// delivery holds it (LeaseOwner), when that lease runs out.
	NextAttemptAt time.Time
	LeaseOwner    string
	CreatedAt     time.Time
}
