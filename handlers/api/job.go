package api

import (
	"context"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"github.com/folio-docs/folio/codehost"
	"github.com/folio-docs/folio/handlers/httpx"
	"github.com/folio-docs/folio/jobs"
	"github.com/folio-docs/folio/model"
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
	ShowJSON(ctx context.Context, projectID, id string) ([]byte, error)
	List(ctx context.Context, projectID string, status model.JobStatus, limit, offset int) ([]model.Job, bool, error)
	Archive(ctx context.Context, projectID, id string) (model.Job, error)
	Cancel(ctx context.Context, projectID, id string) (model.Job, error)
	Messages(ctx context.Context, projectID, id string) ([]jobs.Message, error)
	Changes(ctx context.Context, projectID, id string) (codehost.Changes, model.Job, error)
	Merge(ctx context.Context, projectID, id string) (model.Job, error)
	View(j model.Job) jobs.Job
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

// writeJob answers one job.
func (h *Jobs) writeJob(w http.ResponseWriter, r *http.Request, status int, j model.Job, err error) {
	if err != nil {
		httpx.WriteDomainError(w, r, err)
		return
	}
	httpx.WriteJSON(w, status, h.svc.View(j))
}

func projectID(r *http.Request) string { return mux.Vars(r)["projectId"] }
func jobID(r *http.Request) string     { return mux.Vars(r)["id"] }
