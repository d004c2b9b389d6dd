package httpx_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/folio-docs/folio/handlers/httpx"
	"github.com/folio-docs/folio/model"
)

// TestStatusOf pins each domain error to the contract's status and code
// (CONTRACT §5) and the API's sentence: one case per error.
func TestStatusOf(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		status int
		code   string
		msg    string
	}{
		{"one field", model.Invalid("prompt", `Field "prompt" is required and must not be empty.`),
			400, "invalid_request", `Field "prompt" is required and must not be empty.`},
		{"fields", model.FieldErrors{{Field: "events[0].path", Message: "a"}, {Field: "events[2].ip", Message: "b"}},
			400, "invalid_request", "2 fields are invalid: events[0].path, events[2].ip."},
		{"rate limited", &model.RateLimitedError{Limit: 100, Reset: 90 * time.Second},
			429, "rate_limited", "Rate limit exceeded: 100 requests per hour for this project; retry after the Retry-After seconds."},
		{"job not found", model.ErrJobNotFound, 404, "not_found", "Job not found."},
		{"project not found", model.ErrProjectNotFound, 404, "not_found", "Project not found."},
		{"not found", model.ErrNotFound, 404, "not_found", "Not found."},
		{"job archived", model.ErrJobArchived, 409, "job_archived", "The job is archived; it cannot be changed."},
		{"job busy", model.ErrJobBusy, 409, "conflict", "The agent is still working on the job; merge once its turn ends."},
		{"nothing to merge", model.ErrNothingToMerge, 409, "conflict", "There is nothing to merge: the job's branch brings no change to its ref."},
		{"merge conflict", model.ErrMergeConflict, 409, "conflict",
			"The job's branch does not merge cleanly into its ref; nothing was merged. Send a follow-up to redo the change on top of the ref."},
		{"job not active", model.ErrJobNotActive, 409, "conflict", "The job is not active; only an active job can be cancelled."},
		{"idempotency conflict", model.ErrIdempotencyConflict, 409, "idempotency_conflict",
			"This Idempotency-Key was already used with a different request body."},
		{"queue unavailable", model.ErrQueueUnavailable, 503, "unavailable", "The job queue is unavailable; nothing was stored. Try again shortly."},
		{"no key", model.ErrNoKey, 401, "unauthorized", "Missing API key: send Authorization: Bearer <key>."},
		{"malformed key", model.ErrMalformed, 401, "unauthorized", "Invalid API key: it is malformed, unknown, expired or revoked."},
		{"unknown key", model.ErrUnknownKey, 401, "unauthorized", "Invalid API key: it is malformed, unknown, expired or revoked."},
		{"ip not allowed", model.ErrIPNotAllowed, 403, "ip_not_allowed", "This API key may not be used from your address: it is outside the key's IP allowlist."},
		{"origin not allowed", model.ErrOriginNotAllowed, 403, "forbidden", "This origin is not one of the project's allowed domains."},
		{"drain too large", model.ErrDrainTooLarge, 413, "payload_too_large", "The delivery is over a drain's limits, so nothing of it was stored."},
		// Wrapped, as services and db return them, an error keeps its answer.
		{"wrapped", fmt.Errorf("jobs: merging job j1: %w", model.ErrMergeConflict), 409, "conflict",
			"The job's branch does not merge cleanly into its ref; nothing was merged. Send a follow-up to redo the change on top of the ref."},
		{"wrapped fields", fmt.Errorf("projects: %w", model.Invalid("ref", "Give a branch name, such as main.")),
			400, "invalid_request", "Give a branch name, such as main."},
		// What the mapping does not know is the server's, and says nothing.
		{"unknown", errors.New("disk full"), 500, "internal", ""},
		{"job's run lost", model.ErrJobRunLost, 500, "internal", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, code, msg := httpx.StatusOf(tc.err)
			if status != tc.status || code != tc.code || msg != tc.msg {
				t.Errorf("StatusOf(%v) = %d %s %q, want %d %s %q", tc.err, status, code, msg, tc.status, tc.code, tc.msg)
			}
		})
	}
}

// TestWriteDomainError checks the bodies and headers the API answers a
// domain error with.
func TestWriteDomainError(t *testing.T) {
	for _, tc := range []struct {
		name       string
		err        error
		status     int
		body       string
		retryAfter string
	}{
		{"fields in details", model.FieldErrors{{Field: "from", Message: "a"}, {Field: "to", Message: "b"}}, 400,
			`{"error":"2 fields are invalid: from, to.","code":"invalid_request","details":[{"field":"from","message":"a"},{"field":"to","message":"b"}]}`, ""},
		{"one field", model.Invalid("ref", `Field "ref" must be a branch name.`), 400,
			`{"error":"Field \"ref\" must be a branch name.","code":"invalid_request","details":[{"field":"ref","message":"Field \"ref\" must be a branch name."}]}`, ""},
		{"rate limited", &model.RateLimitedError{Limit: 100, Reset: 1500 * time.Millisecond}, 429,
			`{"error":"Rate limit exceeded: 100 requests per hour for this project; retry after the Retry-After seconds.","code":"rate_limited"}`, "2"},
		{"job archived", model.ErrJobArchived, 409, `{"error":"The job is archived; it cannot be changed.","code":"job_archived"}`, ""},
		{"unknown", errors.New("disk full"), 500, `{"error":"Internal server error; quote request id  when reporting it.","code":"internal"}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			httpx.WriteDomainError(rec, httptest.NewRequest(http.MethodGet, "/", nil), tc.err)
			if rec.Code != tc.status || strings.TrimSpace(rec.Body.String()) != tc.body {
				t.Errorf("got %d %s, want %d %s", rec.Code, rec.Body, tc.status, tc.body)
			}
			if got := rec.Header().Get("Retry-After"); got != tc.retryAfter {
				t.Errorf("Retry-After %q, want %q", got, tc.retryAfter)
			}
		})
	}
}
