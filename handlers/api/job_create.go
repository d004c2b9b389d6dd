package api

import (
	"net/http"

	"github.com/folio-docs/folio/handlers/httpx"
	"github.com/folio-docs/folio/jobs"
)

// Create is POST /job: start a job (201), honouring Idempotency-Key. The
// body may name a ref and a model beyond the seed's prompt.
func (h *Jobs) Create(w http.ResponseWriter, r *http.Request) {
	var req createRequest
	if !h.decodeBody(w, r, jobs.LimitCreate, &req) {
		return
	}
	key, ok := idempotencyKey(w, r)
	if !ok {
		return
	}
	c, err := h.svc.Start(r.Context(), projectID(r), jobs.NewJob{Prompt: req.Prompt, Ref: req.Ref, Model: req.Model}, key)
	httpx.SetQuota(w, c.Quota)
	if c.Replayed && err == nil {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	h.writeJob(w, r, http.StatusCreated, c.Job, err)
}

// Models is GET /models: the models a job of the project may ask for, and
// the one it gets when it names none.
func (h *Jobs) Models(w http.ResponseWriter, r *http.Request) {
	models, def, err := h.svc.Models(r.Context(), projectID(r))
	if err != nil {
		httpx.WriteDomainError(w, r, err) // a project not found is a 404
		return
	}
	out := ModelList{Default: def, Models: make([]Model, len(models))}
	for i, m := range models {
		out.Models[i] = Model{m}
	}
	httpx.WriteJSON(w, http.StatusOK, out)
}

// ModelList is the answer of GET /models.
type ModelList struct {
	Default string  `json:"default"`
	Models  []Model `json:"models"`
}

// Model is a model a job may ask for.
type Model struct {
	ID string `json:"id"`
}
