package model

import "time"

// IdempotencyKey remembers which job a client's Idempotency-Key created, and
// a hash of the request body it came with.
type IdempotencyKey struct {
	ProjectID string
	Key       string
	BodyHash  []byte
	JobID     string
	CreatedAt time.Time
}
