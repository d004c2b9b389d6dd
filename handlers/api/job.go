package api

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"github.com/folio-docs/folio/codehost"
	"github.com/folio-docs/folio/handlers/httpx"
	"github.com/folio-docs/folio/jobs"
	"github.com/folio-docs/folio/model"
)

// Error codes of the job API beyond the common ones.
const (
	CodeJobArchived         = "job_archived"
	CodeIdempotencyConflict = "idempotency_conflict"
)

// JobService is the domain the job endpoints call.
type JobService interface {
	Create(ctx context.Context, projectID, prompt, idempotencyKey string) (jobs.Created, error)
	Start(ctx context.Context, projectID string, req jobs.NewJob, idempotencyKey string) (jobs.Created, error)
	Message(ctx context.Context, projectID, id, prompt string) (jobs.Created, error)
	FollowUp(ctx context.Context, projectID, id, prompt, idempotencyKey string) (jobs.Created, error)
	Models(ctx context.Context, projectID string) ([]string, string, error)
	Quota(ctx context.Context, projectID, limit string) jobs.Quota
	Get(ctx context.Context, projectID, id string) (model.Job, error)
	Show(ctx context.Context, projectID, id string) (jobs.Job, error)
	List(ctx context.Context, projectID string, status model.JobStatus, limit, offset int) ([]model.Job, bool, error)
	Archive(ctx context.Context, projectID, id string) (model.Job, error)
	Cancel(ctx context.Context, projectID, id string) (model.Job, error)
	Messages(ctx context.Context, projectID, id string) ([]jobs.Message, error)
	Changes(ctx context.Context, projectID, id string) (codehost.Changes, model.Job, error)
	Merge(ctx context.Context, projectID, id string) (model.Job, error)
	httpx.JobEventSource
}

// Jobs serves the agent job API (CONTRACT §2) under /v2/agent/{projectId}.
type Jobs struct {
	svc       JobService
	keepAlive time.Duration // of event streams
}

// NewJobs returns the job endpoints over svc; keepAlive is how often an
// event stream says it is alive (0: DefaultKeepAlive).
func NewJobs(svc JobService, keepAlive time.Duration) *Jobs {
	if keepAlive <= 0 {
		keepAlive = httpx.DefaultKeepAlive
	}
	return &Jobs{svc: svc, keepAlive: keepAlive}
}

type promptRequest struct {
	Prompt *string `json:"prompt"`
}

// createRequest is a create's body: the seed's prompt, and optionally the
// ref to start from and the model.
type createRequest struct {
	Prompt string `json:"prompt"`
	Ref    string `json:"ref"`
	Model  string `json:"model"`
}

// decodeBody reads a JSON body into dst. On a bad body it answers the
// error, with the quota of limit in the headers, and reports false.
func (h *Jobs) decodeBody(w http.ResponseWriter, r *http.Request, limit string, dst any) bool {
	if e := httpx.DecodeJSON(r, dst); e != nil {
		httpx.SetQuota(w, h.svc.Quota(r.Context(), projectID(r), limit))
		httpx.WriteError(w, r, e)
		return false
	}
	return true
}

// decodePrompt reads {"prompt": "..."} (a missing prompt is an empty one,
// which the domain refuses).
func (h *Jobs) decodePrompt(w http.ResponseWriter, r *http.Request, limit string) (string, bool) {
	var req promptRequest
	if !h.decodeBody(w, r, limit, &req) {
		return "", false
	}
	if req.Prompt == nil {
		return "", true
	}
	return *req.Prompt, true
}

// idempotencyKey reads the Idempotency-Key header, or answers why it is refused.
func idempotencyKey(w http.ResponseWriter, r *http.Request) (string, bool) {
	key := r.Header.Get("Idempotency-Key")
	if len(key) > httpx.MaxIdempotencyKey {
		httpx.WriteError(w, r, httpx.InvalidField("Idempotency-Key", "The Idempotency-Key header must be at most 255 bytes."))
		return "", false
	}
	return key, true
}

// writeJobError answers a domain error in the contract's shape.
func writeJobError(w http.ResponseWriter, r *http.Request, err error) {
	var rl *jobs.RateLimitedError
	var fe model.FieldErrors
	switch {
	case errors.As(err, &fe):
		httpx.WriteError(w, r, invalidProblems(fe))
	case errors.As(err, &rl):
		httpx.SetRetryAfter(w, rl.Quota.Reset)
		httpx.WriteError(w, r, httpx.NewError(http.StatusTooManyRequests, httpx.CodeRateLimited, "Rate limit exceeded: %d requests per hour for this project; retry after the Retry-After seconds.", rl.Quota.Limit))
	case errors.Is(err, model.ErrNotFound):
		httpx.WriteError(w, r, httpx.NewError(http.StatusNotFound, httpx.CodeNotFound, "Job not found."))
	case errors.Is(err, model.ErrJobArchived):
		httpx.WriteError(w, r, httpx.NewError(http.StatusConflict, CodeJobArchived, "The job is archived; it cannot be changed."))
	case errors.Is(err, model.ErrJobBusy):
		httpx.WriteError(w, r, httpx.NewError(http.StatusConflict, httpx.CodeConflict, "The agent is still working on the job; merge once its turn ends."))
	case errors.Is(err, model.ErrNothingToMerge):
		httpx.WriteError(w, r, httpx.NewError(http.StatusConflict, httpx.CodeConflict, "There is nothing to merge: the job's branch brings no change to its ref."))
	case errors.Is(err, model.ErrMergeConflict):
		httpx.WriteError(w, r, httpx.NewError(http.StatusConflict, httpx.CodeConflict, "The job's branch does not merge cleanly into its ref; nothing was merged. Send a follow-up to redo the change on top of the ref."))
	case errors.Is(err, model.ErrJobNotActive):
		httpx.WriteError(w, r, httpx.NewError(http.StatusConflict, httpx.CodeConflict, "The job is not active; only an active job can be cancelled."))
	case errors.Is(err, model.ErrIdempotencyConflict):
		httpx.WriteError(w, r, httpx.NewError(http.StatusConflict, CodeIdempotencyConflict, "This Idempotency-Key was already used with a different request body."))
	case errors.Is(err, model.ErrQueueUnavailable):
		httpx.WriteError(w, r, httpx.NewError(http.StatusServiceUnavailable, httpx.CodeUnavailable, "The job queue is unavailable; nothing was stored. Try again shortly."))
	default:
		httpx.WriteInternal(w, r, err)
	}
}

// writeJob answers one job.
func writeJob(w http.ResponseWriter, r *http.Request, status int, j model.Job, err error) {
	if err != nil {
		writeJobError(w, r, err)
		return
	}
	httpx.WriteJSON(w, status, jobs.View(j))
}

func projectID(r *http.Request) string { return mux.Vars(r)["projectId"] }
func jobID(r *http.Request) string     { return mux.Vars(r)["id"] }
