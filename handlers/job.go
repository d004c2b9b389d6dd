package handlers

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strconv"

	"github.com/gorilla/mux"

	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/jobs"
)

// Error codes of the job API beyond the common ones.
const (
	CodeJobArchived         = "job_archived"
	CodeIdempotencyConflict = "idempotency_conflict"
)

// JobService is the domain the job endpoints call.
type JobService interface {
	Create(ctx context.Context, projectID, prompt, idempotencyKey string) (jobs.Created, error)
	Message(ctx context.Context, projectID, id, prompt string) (jobs.Created, error)
	Quota(ctx context.Context, projectID, limit string) jobs.Quota
	Get(ctx context.Context, projectID, id string) (db.Job, error)
	Show(ctx context.Context, projectID, id string) (jobs.Job, error)
	List(ctx context.Context, projectID, status string, limit, offset int) ([]db.Job, bool, error)
	Archive(ctx context.Context, projectID, id string) (db.Job, error)
	Cancel(ctx context.Context, projectID, id string) (db.Job, error)
	Messages(ctx context.Context, projectID, id string) ([]jobs.Message, error)
}

// Jobs serves the agent job API (CONTRACT §2) under /v2/agent/{projectId}.
type Jobs struct{ svc JobService }

// NewJobs returns the job endpoints over svc.
func NewJobs(svc JobService) *Jobs { return &Jobs{svc: svc} }

type promptRequest struct {
	Prompt *string `json:"prompt"`
}

// decodePrompt reads {"prompt": "..."} (a missing prompt is an empty one,
// which the domain refuses). On a bad body it answers the error, with the
// quota of limit in the headers, and reports false.
func (h *Jobs) decodePrompt(w http.ResponseWriter, r *http.Request, limit string) (string, bool) {
	var req promptRequest
	if e := decodeJSON(r, &req); e != nil {
		setQuota(w, h.svc.Quota(r.Context(), projectID(r), limit))
		WriteError(w, r, e)
		return "", false
	}
	if req.Prompt == nil {
		return "", true
	}
	return *req.Prompt, true
}

// setQuota writes the RateLimit headers of a quota (none if Redis could not say).
func setQuota(w http.ResponseWriter, q jobs.Quota) {
	if q.Limit == 0 {
		return
	}
	h := w.Header()
	h.Set("RateLimit-Limit", strconv.Itoa(q.Limit))
	h.Set("RateLimit-Remaining", strconv.Itoa(max(q.Remaining, 0)))
	h.Set("RateLimit-Reset", strconv.Itoa(int(math.Ceil(q.Reset.Seconds()))))
}

// writeJobError answers a domain error in the contract's shape.
func writeJobError(w http.ResponseWriter, r *http.Request, err error) {
	var pe *jobs.PromptError
	var rl *jobs.RateLimitedError
	switch {
	case errors.As(err, &pe):
		WriteError(w, r, InvalidField("prompt", pe.Message))
	case errors.As(err, &rl):
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(rl.Quota.Reset.Seconds())))))
		WriteError(w, r, NewError(http.StatusTooManyRequests, CodeRateLimited, "Rate limit exceeded: %d requests per hour for this project; retry after the Retry-After seconds.", rl.Quota.Limit))
	case errors.Is(err, jobs.ErrNotFound):
		WriteError(w, r, NewError(http.StatusNotFound, CodeNotFound, "Job not found."))
	case errors.Is(err, jobs.ErrArchived):
		WriteError(w, r, NewError(http.StatusConflict, CodeJobArchived, "The job is archived; it cannot be changed."))
	case errors.Is(err, jobs.ErrNotActive):
		WriteError(w, r, NewError(http.StatusConflict, CodeConflict, "The job is not active; only an active job can be cancelled."))
	case errors.Is(err, jobs.ErrIdempotencyConflict):
		WriteError(w, r, NewError(http.StatusConflict, CodeIdempotencyConflict, "This Idempotency-Key was already used with a different request body."))
	case errors.Is(err, jobs.ErrUnavailable):
		WriteError(w, r, NewError(http.StatusServiceUnavailable, CodeUnavailable, "The job queue is unavailable; nothing was stored. Try again shortly."))
	default:
		writeInternal(w, r, err)
	}
}

// writeJob answers one job.
func writeJob(w http.ResponseWriter, r *http.Request, status int, j db.Job, err error) {
	if err != nil {
		writeJobError(w, r, err)
		return
	}
	writeJSON(w, status, jobs.View(j))
}

func projectID(r *http.Request) string { return mux.Vars(r)["projectId"] }
func jobID(r *http.Request) string     { return mux.Vars(r)["id"] }
